// Webhook payloads as GitHub sends them to a workflow: real examples from @octokit/webhooks-examples,
// changed field by field to fit the case (the repository, the people, the comment or review).
import { createRequire } from 'node:module';
import type { PullState, ReviewCommentState, ReviewState } from './emulator.js';

export const OWNER = 'octo-org';
export const REPO = 'hello-world';
const API = 'https://api.github.com';
const WEB = 'https://github.com';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a webhook payload, edited field by field
type Payload = Record<string, any>;

const require = createRequire(import.meta.url);

/**
 * A fresh copy of an example of `event` with `action`: the first, or the newest (which carries the fields
 * GitHub's description has added since).
 */
function example(event: string, action: string, which: 'first' | 'newest' = 'newest'): Payload {
  const groups = require('@octokit/webhooks-examples') as Array<{ name: string; examples: Payload[] }>;
  const found = groups.find((group) => group.name === event)?.examples.filter((e) => e.action === action);
  if (!found?.length) throw new Error(`no ${event} example with action ${action}`);
  return structuredClone(which === 'first' ? found[0]! : found.at(-1)!);
}

/** The example's repository renamed to ours, with the fields GitHub's description now requires. */
function ourRepository(repository: Payload): Payload {
  return {
    ...repository,
    name: REPO,
    full_name: `${OWNER}/${REPO}`,
    owner: { ...repository.owner, login: OWNER },
    has_discussions: repository.has_discussions ?? false,
  };
}

const asUser = (user: Payload, login: string, type: 'User' | 'Bot' = 'User'): Payload => ({
  ...user,
  login,
  type,
});

export interface CommentEventOptions {
  body: string;
  user?: string;
  userType?: 'User' | 'Bot';
  issueNumber?: number;
  title?: string;
  issueBody?: string;
  pullRequest?: boolean;
  action?: 'created' | 'edited' | 'deleted';
  commentId?: number;
  createdAt?: string;
  issueState?: 'open' | 'closed';
}

/** A real `issue_comment` payload from @octokit/webhooks-examples, changed to fit the case. */
export function issueCommentEvent(options: CommentEventOptions): Record<string, unknown> {
  const event = example('issue_comment', 'created', 'first');
  const user = options.user ?? 'maintainer';
  event.action = options.action ?? 'created';
  event.issue.number = options.issueNumber ?? 1;
  event.issue.title = options.title ?? 'Tidy up hello.py';
  event.issue.body = options.issueBody ?? 'hello.py could use type hints and a main guard.';
  event.issue.state = options.issueState ?? 'open';
  event.issue.locked = false;
  if (options.pullRequest) {
    event.issue.pull_request = { url: `${API}/repos/${OWNER}/${REPO}/pulls/${event.issue.number}` };
  } else {
    delete event.issue.pull_request;
  }
  event.comment.id = options.commentId ?? 9001;
  event.comment.body = options.body;
  event.comment.user = asUser(event.comment.user, user, options.userType);
  event.comment.created_at = options.createdAt ?? new Date().toISOString();
  event.comment.html_url = `${WEB}/${OWNER}/${REPO}/issues/${event.issue.number}#issuecomment-${event.comment.id}`;
  event.sender = asUser(event.sender, user, options.userType);
  event.repository = ourRepository(event.repository);
  return event;
}

/** The pull request an event is about: `emu.state.pulls[i]` fits, or just the fields a test cares for. */
export type EventPull = Pick<PullState, 'number'> &
  Partial<
    Pick<PullState, 'title' | 'body' | 'head' | 'base' | 'user' | 'head_sha' | 'base_sha' | 'draft' | 'fork'>
  >;

/** A review comment as `emu.addReviewComment` returns it, or the fields a test picks. */
export type EventReviewComment = Pick<
  ReviewCommentState,
  'id' | 'body' | 'path' | 'line' | 'diff_hunk' | 'user'
> &
  Partial<
    Pick<
      ReviewCommentState,
      'side' | 'in_reply_to_id' | 'commit_id' | 'pull_request_review_id' | 'created_at' | 'updated_at'
    >
  >;

/** A review as `emu.addReview` returns it (REST's upper-case state), or the fields a test picks. */
export type EventReview = Pick<ReviewState, 'id' | 'body' | 'state' | 'user'> &
  Partial<Pick<ReviewState, 'submitted_at' | 'commit_id'>>;

interface PullEventOptions {
  pull: EventPull;
  /** The commenter's or reviewer's relation to the repository; default 'COLLABORATOR' (write access). */
  authorAssociation?: string;
  userType?: 'User' | 'Bot';
}

/** The example's `pull_request` turned into ours: by default the agent's own open PR from its branch. */
function ourPull(pr: Payload, pull: EventPull): Payload {
  const head = pull.head ?? `todo-agent/issue-1`;
  const base = pull.base ?? 'main';
  const url = `${API}/repos/${OWNER}/${REPO}/pulls/${pull.number}`;
  // A fork's head is in the contributor's repository of the same name.
  const branch = (side: Payload, ref: string, sha: string | undefined, owner = OWNER) => ({
    ...side,
    label: `${owner}:${ref}`,
    ref,
    ...(sha ? { sha } : {}),
    user: { ...side.user, login: owner },
    repo:
      owner === OWNER
        ? ourRepository(side.repo)
        : {
            ...ourRepository(side.repo),
            full_name: `${owner}/${REPO}`,
            owner: { ...side.repo.owner, login: owner },
            fork: true,
          },
  });
  return {
    ...pr,
    url,
    html_url: `${WEB}/${OWNER}/${REPO}/pull/${pull.number}`,
    issue_url: `${API}/repos/${OWNER}/${REPO}/issues/${pull.number}`,
    number: pull.number,
    state: 'open',
    title: pull.title ?? 'Tidy up hello.py',
    body: pull.body ?? null,
    draft: pull.draft ?? false,
    user: asUser(
      pr.user,
      pull.user ?? 'github-actions[bot]',
      (pull.user ?? '[bot]').endsWith('[bot]') ? 'Bot' : 'User',
    ),
    head: branch(pr.head, head, pull.head_sha, pull.fork?.owner),
    base: branch(pr.base, base, pull.base_sha),
  };
}

export interface ReviewCommentEventOptions extends PullEventOptions {
  comment: EventReviewComment;
}

/** A `pull_request_review_comment` payload (action `created`): a comment on a line of the pull's diff. */
export function pullRequestReviewCommentEvent(options: ReviewCommentEventOptions): Record<string, unknown> {
  const event = example('pull_request_review_comment', 'created');
  const { comment, pull } = options;
  const url = `${API}/repos/${OWNER}/${REPO}/pulls/comments/${comment.id}`;
  const htmlUrl = `${WEB}/${OWNER}/${REPO}/pull/${pull.number}#discussion_r${comment.id}`;
  const pullUrl = `${API}/repos/${OWNER}/${REPO}/pulls/${pull.number}`;
  const createdAt = comment.created_at ?? new Date().toISOString();
  const { in_reply_to_id: _dropped, ...exampleComment } = event.comment;
  event.comment = {
    ...exampleComment,
    url,
    id: comment.id,
    pull_request_review_id: comment.pull_request_review_id ?? comment.id + 1,
    diff_hunk: comment.diff_hunk,
    path: comment.path,
    line: comment.line,
    original_line: comment.line,
    side: comment.side ?? 'RIGHT',
    ...(comment.commit_id ? { commit_id: comment.commit_id, original_commit_id: comment.commit_id } : {}),
    ...(comment.in_reply_to_id === undefined ? {} : { in_reply_to_id: comment.in_reply_to_id }),
    user: asUser(event.comment.user, comment.user, options.userType),
    body: comment.body,
    author_association: options.authorAssociation ?? 'COLLABORATOR',
    created_at: createdAt,
    updated_at: comment.updated_at ?? createdAt,
    html_url: htmlUrl,
    pull_request_url: pullUrl,
    _links: { self: { href: url }, html: { href: htmlUrl }, pull_request: { href: pullUrl } },
    reactions: { ...event.comment.reactions, url: `${url}/reactions` },
  };
  event.pull_request = ourPull(event.pull_request, pull);
  event.repository = ourRepository(event.repository);
  event.sender = asUser(event.sender, comment.user, options.userType);
  return event;
}

export interface ReviewEventOptions extends PullEventOptions {
  review: EventReview;
}

/** A `pull_request_review` payload (action `submitted`); webhooks spell the state in lower case. */
export function pullRequestReviewEvent(options: ReviewEventOptions): Record<string, unknown> {
  const event = example('pull_request_review', 'submitted');
  const { review, pull } = options;
  const htmlUrl = `${WEB}/${OWNER}/${REPO}/pull/${pull.number}#pullrequestreview-${review.id}`;
  const pullUrl = `${API}/repos/${OWNER}/${REPO}/pulls/${pull.number}`;
  event.review = {
    ...event.review,
    id: review.id,
    user: asUser(event.review.user, review.user, options.userType),
    body: review.body === '' ? null : review.body,
    ...(review.commit_id ? { commit_id: review.commit_id } : {}),
    submitted_at: review.submitted_at ?? new Date().toISOString(),
    state: review.state.toLowerCase(),
    html_url: htmlUrl,
    pull_request_url: pullUrl,
    author_association: options.authorAssociation ?? 'COLLABORATOR',
    _links: { html: { href: htmlUrl }, pull_request: { href: pullUrl } },
  };
  event.pull_request = ourPull(event.pull_request, pull);
  event.repository = ourRepository(event.repository);
  event.sender = asUser(event.sender, review.user, options.userType);
  return event;
}

export interface IssuesEventOptions {
  action: 'labeled' | 'assigned' | 'opened';
  /** The label added (labeled) or the login assigned (assigned). */
  label?: string;
  assignee?: string;
  /** Who labeled or assigned. */
  sender?: string;
  senderType?: 'User' | 'Bot';
  issueNumber?: number;
  title?: string;
  body?: string;
  issueState?: 'open' | 'closed';
}

/** An `issues` payload (labeled or assigned) from @octokit/webhooks-examples, changed to fit the case. */
export function issuesEvent(options: IssuesEventOptions): Record<string, unknown> {
  const event = example('issues', options.action === 'opened' ? 'opened' : options.action);
  const sender = options.sender ?? 'maintainer';
  const number = options.issueNumber ?? 1;
  event.issue = {
    ...event.issue,
    number,
    title: options.title ?? 'Tidy up hello.py',
    body: options.body ?? 'hello.py could use type hints and a main guard.',
    state: options.issueState ?? 'open',
    locked: false,
    url: `${API}/repos/${OWNER}/${REPO}/issues/${number}`,
    html_url: `${WEB}/${OWNER}/${REPO}/issues/${number}`,
    updated_at: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'),
  };
  delete event.issue.pull_request;
  if (options.action === 'labeled') {
    event.label = { ...event.label, name: options.label ?? 'todo-agent' };
    event.issue.labels = [event.label];
  }
  if (options.action === 'assigned') {
    const assignee = asUser(event.assignee, options.assignee ?? 'todo-agent-bot');
    event.assignee = assignee;
    event.issue.assignee = assignee;
    event.issue.assignees = [assignee];
  }
  event.sender = asUser(event.sender, sender, options.senderType);
  event.repository = ourRepository(event.repository);
  return event;
}

/** A `workflow_dispatch` payload with the workflow's inputs, as the runner's event file holds it. */
export function workflowDispatchEvent(
  inputs: Record<string, string>,
  sender = 'maintainer',
  senderType: 'User' | 'Bot' = 'User',
): Record<string, unknown> {
  const groups = require('@octokit/webhooks-examples') as Array<{ name: string; examples: Payload[] }>;
  const event = structuredClone(groups.find((g) => g.name === 'workflow_dispatch')!.examples[0]!);
  event.inputs = inputs;
  event.ref = 'refs/heads/main';
  event.workflow = '.github/workflows/todo-agent.yml';
  event.sender = asUser(event.sender, sender, senderType);
  event.repository = ourRepository(event.repository);
  if (event.organization) event.organization = { ...event.organization, login: OWNER };
  return event;
}
