// The emulator's world: the repository context, the state tests inspect, seeding from the options, and
// the lookups and writes that several resource modules share.
import { createHash } from 'node:crypto';
import { BOT_LOGIN, WEB, nodeId, timestamp, userJson } from './json.js';
import type { Ctx } from './json.js';
import { notFound } from './replies.js';
import type { Reply } from './replies.js';
import type { AttachmentState } from './attachments.js';
import type {
  CommentState,
  EmulatorOptions,
  EmulatorState,
  IssueState,
  PullState,
  SeedIssue,
  TransferState,
} from './types.js';

/** Everything a handler may read or change; `api` is filled in once the server listens. */
export interface Emu extends Ctx {
  options: EmulatorOptions;
  state: EmulatorState;
  /** OpenAPI, auth and emulation problems, shared with the server. */
  violations: string[];
  /** Who the token writes as. */
  actor: string;
  /** Reaction JSON by `target:content`, so repeating a reaction returns the same one with 200. */
  reactionsByKey: Map<string, unknown>;
  nextId: {
    comment: number;
    reaction: number;
    reviewComment: number;
    review: number;
    checkRun: number;
    status: number;
  };
  /** Uploaded pictures by uuid. */
  attachments: Map<string, AttachmentState>;
  /** Job logs by job id. */
  jobLogs: Map<number, string>;
  /** Issues transferred to another repository, by their number here. */
  transfers: Map<number, TransferState>;
}

/** A stand-in commit for a branch the emulator has no origin to look up. */
export const placeholderSha = (ref: string) => createHash('sha1').update(`ref:${ref}`).digest('hex');

export function createEmu(options: EmulatorOptions): Emu {
  const emu: Emu = {
    api: '',
    owner: options.owner ?? 'octo-org',
    repo: options.repo ?? 'hello-world',
    defaultBranch: options.defaultBranch ?? 'main',
    permissions: options.permissions ?? {},
    options,
    state: {
      comments: new Map(),
      reviewComments: new Map(),
      reviews: new Map(),
      workflowRuns: new Map(),
      pulls: [],
      issues: new Map(),
      apiCommits: [],
      checkRuns: [],
      statuses: [],
    },
    attachments: new Map(),
    jobLogs: new Map(),
    transfers: new Map(),
    violations: [],
    actor: options.tokenUser ?? options.appBot ?? BOT_LOGIN,
    reactionsByKey: new Map(),
    nextId: {
      comment: 1_000_000_001,
      reaction: 100_000_001,
      reviewComment: 2_000_000_001,
      review: 3_000_001,
      checkRun: 40_000_001,
      status: 9_000_001,
    },
  };
  for (const seed of options.issues ?? []) {
    const issue = addIssue(emu, seed);
    if (seed.pull_request) {
      emu.state.pulls.push({
        number: issue.number,
        title: issue.title,
        body: issue.body,
        head: seed.pull_request.head,
        base: emu.defaultBranch,
        state: issue.state,
        html_url: `${WEB}/${emu.owner}/${emu.repo}/pull/${issue.number}`,
        draft: false,
        user: issue.user,
        head_sha: placeholderSha(seed.pull_request.head),
        base_sha: placeholderSha(emu.defaultBranch),
        created_at: issue.created_at,
        ...(seed.pull_request.fork
          ? {
              fork: {
                owner: seed.pull_request.fork.owner,
                maintainer_can_modify: seed.pull_request.fork.maintainerCanModify ?? false,
                ...(seed.pull_request.fork.deleted ? { deleted: true } : {}),
              },
            }
          : {}),
      });
    }
  }
  return emu;
}

export function addIssue(emu: Emu, seed: SeedIssue): IssueState {
  const now = timestamp();
  const issue: IssueState = {
    number: seed.number,
    title: seed.title,
    body: seed.body ?? '',
    state: seed.state ?? 'open',
    locked: seed.locked ?? false,
    user: seed.user ?? 'octocat',
    ...(seed.pull_request ? { pull_request: { head: seed.pull_request.head } } : {}),
    reactions: [],
    created_at: now,
    updated_at: now,
  };
  emu.state.issues.set(issue.number, issue);
  return issue;
}

/** The value looked up, or GitHub's 404 when there is none. */
function found<T>(value: T | undefined): T {
  if (value === undefined) throw notFound();
  return value;
}

export const requireIssue = (emu: Emu, n: number): IssueState => found(emu.state.issues.get(n));

export const requirePull = (emu: Emu, n: number): PullState =>
  found(emu.state.pulls.find((p) => p.number === n));

export const requireComment = (emu: Emu, id: number): CommentState => found(emu.state.comments.get(id));

export function commentCount(emu: Emu, issueNumber: number): number {
  return [...emu.state.comments.values()].filter((c) => c.issue_number === issueNumber).length;
}

/** A pull request's conversation comments and review comments, as its JSON counts them. */
export function discussionCounts(emu: Emu, pullNumber: number) {
  const reviewComments = [...emu.state.reviewComments.values()].filter((c) => c.pull_number === pullNumber);
  return { comments: commentCount(emu, pullNumber), reviewComments: reviewComments.length };
}

export function createComment(emu: Emu, issueNumber: number, user: string, body: string): CommentState {
  const now = timestamp();
  const comment: CommentState = {
    id: emu.nextId.comment++,
    issue_number: issueNumber,
    user,
    body,
    versions: [body],
    reactions: [],
    created_at: now,
    updated_at: now,
  };
  emu.state.comments.set(comment.id, comment);
  return comment;
}

/** The token's reaction `content` on the target `key`: 201 when new, 200 with the same one when repeated. */
export function react(emu: Emu, key: string, contents: string[], content: string): Reply {
  const existing = emu.reactionsByKey.get(`${key}:${content}`);
  if (existing) return { status: 200, body: existing };
  const id = emu.nextId.reaction++;
  const reaction = {
    id,
    node_id: nodeId('REA', String(id)),
    user: userJson(emu, emu.actor),
    content,
    created_at: timestamp(),
  };
  emu.reactionsByKey.set(`${key}:${content}`, reaction);
  contents.push(content);
  return { status: 201, body: reaction };
}
