// The GitHub emulator's public types: how it is started, what it keeps, what it records.
import type { CheckRunSeed, CheckRunState, StatusSeed, StatusState } from './checks.js';
import type { ForkPushCall } from './fork-git.js';

export type { CheckRunSeed, CheckRunState, StatusSeed, StatusState } from './checks.js';
export type { ForkPushCall } from './fork-git.js';

export type Permission = 'admin' | 'write' | 'read' | 'none';

export interface SeedIssue {
  number: number;
  title: string;
  body?: string;
  state?: 'open' | 'closed';
  locked?: boolean;
  /** Author login; default 'octocat'. */
  user?: string;
  /** Marks the issue as a pull request from this head branch (base: the default branch). */
  pull_request?: { head: string; fork?: ForkSeed };
}

/**
 * A pull request's head in a fork: the fork's owner (the repository keeps its name), and whether the
 * contributor allows edits from maintainers. The origin serves its head as `refs/pull/N/head` only.
 */
export interface ForkSeed {
  owner: string;
  maintainerCanModify?: boolean;
  /** The fork was deleted since: GitHub then answers `head.repo: null` (its refs/pull/N/head stays). */
  deleted?: boolean;
}

export interface EmulatorOptions {
  /** Default 'octo-org'. */
  owner?: string;
  /** Default 'hello-world'. */
  repo?: string;
  /** When set, every request needs `authorization: token X` or `Bearer X`; unset, auth is not checked. */
  token?: string;
  /**
   * The user a personal access token belongs to: comments, reactions and pull requests are then written as
   * that user, and `GET /user` names them. Unset, the token is the workflow's installation token: writes
   * come from github-actions[bot] and `GET /user` is refused, as GitHub refuses it.
   */
  tokenUser?: string;
  /**
   * With `tokenUser`: the token is a classic personal access token with these scopes, which GitHub lists in
   * every answer's `X-OAuth-Scopes` header. Unset: a fine-grained token, whose answers carry no such header.
   */
  tokenScopes?: readonly string[];
  /**
   * The bot an app's installation token writes as (e.g. 'todo-app[bot]'): writes come from it, and
   * `GET /user` is refused as for the workflow token. Unset (and no `tokenUser`): github-actions[bot].
   */
  appBot?: string;
  /** Default 'main'. */
  defaultBranch?: string;
  /** Every answer waits this long after its request arrived, as a distant GitHub would (default 0). */
  latencyMs?: number;
  /** Bare git repository acting as origin; when set, PR heads and bases must exist in it. */
  remoteDir?: string;
  /**
   * A folder of forks' bare repositories (`<owner>/<repo>.git`), served over git's smart HTTP at
   * `<forks.url>/<owner>/<repo>.git` as GitHub serves them (see fork-git.ts: who may push where).
   */
  forksDir?: string;
  /** Collaborator permissions by login; logins not listed get 404 from the permission endpoint. */
  permissions?: Record<string, Permission>;
  issues?: SeedIssue[];
  /** The token may cancel workflow runs (the workflow grants `actions: write`); default true. */
  actionsWrite?: boolean;
  /**
   * The token may create or change files under `.github/workflows/` (the `workflows` permission); default
   * true. False refuses such a createCommitOnBranch as GitHub does (the git side: ./origin-rules.ts).
   */
  workflowsPermission?: boolean;
  /** Where rendered HTML points images on other hosts (GitHub's camo proxy); default camo.githubusercontent.com. */
  camoUrl?: string;
  /**
   * What `GET /meta` lists in `domains.packages`: by default made-up hosts (`PACKAGE_HOSTS`, under `.test`);
   * null answers as a GitHub Enterprise Server from before `domains` does, without the field.
   */
  packageHosts?: readonly string[] | null;
}

/** A workflow run GitHub knows of; `onCancel` plays the runner stopping the job (e.g. SIGTERM to it). */
export interface WorkflowRunState {
  id: number;
  status: 'queued' | 'in_progress' | 'completed';
  conclusion?: 'cancelled' | 'success';
  /** Its workflow (the emulator's one workflow unless said otherwise). */
  workflowId: number;
  /** `display_title`: the workflow's run-name, `todo-agent #1` by default. */
  title: string;
  /** When it was made (and started): an ISO time. */
  createdAt: string;
  onCancel?: () => void;
}

/** A commit the emulator made for createCommitOnBranch: GitHub signs these, so they show as Verified. */
export interface ApiCommitState {
  oid: string;
  branch: string;
  verified: true;
}

export interface RecordedCall {
  method: string;
  /** Pathname without the query string. */
  path: string;
  query: Record<string, string>;
  body: unknown;
  status: number;
  /** Epoch milliseconds when the request arrived. */
  at: number;
  /** Epoch milliseconds when the answer was sent (after `latencyMs`); 0 until then. */
  answeredAt: number;
  operationId?: string;
  /** The JSON the emulator answered with (undefined for empty bodies). */
  response?: unknown;
}

export interface CommentState {
  id: number;
  issue_number: number;
  user: string;
  body: string;
  /** Every body the comment has had, oldest first: the creation body, then one entry per PATCH. */
  versions: string[];
  /** Reaction contents, in the order they were added. */
  reactions: string[];
  created_at: string;
  updated_at: string;
}

export interface IssueState {
  number: number;
  title: string;
  body: string;
  state: 'open' | 'closed';
  locked: boolean;
  user: string;
  pull_request?: { head: string };
  /** Reaction contents added to the issue itself. */
  reactions: string[];
  created_at: string;
  updated_at: string;
}

/** An issue transferred to another repository: where it is now, and what it was here. */
export interface TransferState {
  /** `owner/name` of the repository it went to. */
  to: string;
  /** That repository's id: GitHub's redirect names the repository by id. */
  repositoryId: number;
  /** Its number there. */
  number: number;
  issue: IssueState;
}

export interface PullState {
  number: number;
  title: string;
  body: string;
  head: string;
  base: string;
  state: 'open' | 'closed';
  html_url: string;
  draft: boolean;
  user: string;
  head_sha: string;
  base_sha: string;
  created_at: string;
  /** The head is a fork's branch (see ForkSeed). */
  fork?: { owner: string; maintainer_can_modify: boolean; deleted?: boolean };
}

/** A comment on a line of a pull request's diff: a thread's first comment, or a reply in it. */
export interface ReviewCommentState {
  id: number;
  pull_number: number;
  /** The review the comment belongs to (GitHub makes a one-comment review for a lone comment or reply). */
  pull_request_review_id: number;
  path: string;
  line: number;
  /** The first line of a comment on a range of lines. */
  start_line?: number;
  side: 'LEFT' | 'RIGHT';
  diff_hunk: string;
  body: string;
  user: string;
  /** The thread's first comment, for a reply; absent on the first comment. */
  in_reply_to_id?: number;
  commit_id: string;
  /** Reaction contents, in the order they were added. */
  reactions: string[];
  created_at: string;
  updated_at: string;
}

/** A submitted review of a pull request, as the REST API spells its state. */
export interface ReviewState {
  id: number;
  pull_number: number;
  body: string;
  state: 'APPROVED' | 'CHANGES_REQUESTED' | 'COMMENTED' | 'DISMISSED';
  user: string;
  commit_id: string;
  submitted_at: string;
}

export interface ReviewCommentSeed {
  body: string;
  /** The file, line and diff hunk a thread's first comment sits on (a reply takes its thread's). */
  path?: string;
  line?: number;
  diffHunk?: string;
  /** Default 'RIGHT'. */
  side?: 'LEFT' | 'RIGHT';
  /** The id of the thread's first comment, to seed a reply in that thread. */
  inReplyTo?: number;
  /** The review the comment is part of (from `addReview`); unset, a one-comment COMMENTED review is made. */
  reviewId?: number;
}

export interface ReviewSeed {
  body: string;
  state: ReviewState['state'];
}

export interface EmulatorState {
  comments: Map<number, CommentState>;
  /** Pull request review comments (on lines of the diff), by id. */
  reviewComments: Map<number, ReviewCommentState>;
  /** Pull request reviews, by id. */
  reviews: Map<number, ReviewState>;
  workflowRuns: Map<number, WorkflowRunState>;
  pulls: PullState[];
  /** Issues and pull requests (which are issues too), by number. */
  issues: Map<number, IssueState>;
  /** Commits made through GraphQL's createCommitOnBranch, oldest first. */
  apiCommits: ApiCommitState[];
  checkRuns: CheckRunState[];
  statuses: StatusState[];
}

export interface InjectedResponse {
  status: number;
  headers?: Record<string, string>;
  body?: unknown;
}

export interface GitHubEmulator {
  /** Base URL, e.g. http://127.0.0.1:PORT: use as GITHUB_API_URL / Octokit baseUrl. */
  url: string;
  calls: RecordedCall[];
  /** The pushes a fork's repository was asked for, and whether each was let through (fork-git.ts). */
  forkPushes: ForkPushCall[];
  /** With `forksDir`: where the forks' repositories are served (GITHUB_SERVER_URL) and the certificate to trust. */
  forks?: { url: string; certificate: string };
  /** OpenAPI, auth and emulation problems; tests should assert this stays empty. */
  violations: string[];
  state: EmulatorState;
  /** Seeds a comment by someone else (e.g. the maintainer's `/agent ...`). */
  addComment(issueNumber: number, user: string, body: string): CommentState;
  /** Someone edits a comment in the web editor (a new version; the browser sends CRLF line ends). */
  editComment(commentId: number, body: string): CommentState;
  /** Seeds a review comment on a line of a pull request (or a reply in a thread) by someone else. */
  addReviewComment(pullNumber: number, user: string, seed: ReviewCommentSeed): ReviewCommentState;
  /** Seeds a submitted review of a pull request by someone else. */
  addReview(pullNumber: number, user: string, seed: ReviewSeed): ReviewState;
  /** Conditional GETs answered 304 Not Modified, which GitHub does not count against the rate limit. */
  notModified: number;
  /** Registers a workflow run (in progress unless said otherwise) that the API may be asked to cancel. */
  addWorkflowRun(run: Pick<WorkflowRunState, 'id'> & Partial<WorkflowRunState>): WorkflowRunState;
  /**
   * Uploads a picture as a comment's drag-and-drop does; returns the URL to write in Markdown
   * (`<api>/user-attachments/assets/<uuid>`: the emulator plays the server, GITHUB_SERVER_URL).
   */
  addAttachment(bytes: Uint8Array, contentType?: string): string;
  /** A check run on a commit (or a pull request's head branch); with steps or a log, a GitHub Actions job. */
  addCheckRun(seed: CheckRunSeed): CheckRunState;
  /** A commit status on a commit (or a pull request's head branch). */
  addStatus(seed: StatusSeed): StatusState;
  /**
   * Transfers issue `number` to the repository `to` (`owner/name`, of id `repositoryId`), where it becomes
   * `newNumber`: from then on this repository answers it as GitHub does (see issues.ts).
   */
  transferIssue(
    number: number,
    to: { repository: string; repositoryId: number; newNumber: number },
  ): TransferState;
  /** Makes the next `times` (default 1) requests matching method and path regex fail with `response`. */
  failNext(match: { method?: string; path: RegExp }, response: InjectedResponse, times?: number): void;
  /** Calls other than GET/HEAD, in order. */
  /** Holds the answer to the next matching request until the returned function is called (or close). */
  holdNext(match: { method?: string; path: RegExp }): () => void;
  writes(): RecordedCall[];
  close(): Promise<void>;
}
