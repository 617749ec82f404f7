/**
 * A stateful stand-in for api.github.com, served over real HTTP on 127.0.0.1 for end-to-end tests.
 *
 * It emulates the handful of REST operations todo-agent uses, keeps what they change in `state`,
 * and checks every request against GitHub's OpenAPI description (see ./openapi.ts): anything GitHub
 * would refuse, and any real operation that is not emulated, lands in `violations`.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { checkRequest } from './openapi.js';
import type { OperationMatch } from './openapi.js';
import { readBody } from './http-body.js';
import { diffFiles } from './github-diff.js';

// ---------------------------------------------------------------------------------------------
// Public types

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
  pull_request?: { head: string };
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
   * The bot an app's installation token writes as (e.g. 'todo-app[bot]'): writes come from it, and
   * `GET /user` is refused as for the workflow token. Unset (and no `tokenUser`): github-actions[bot].
   */
  appBot?: string;
  /** Default 'main'. */
  defaultBranch?: string;
  /** Bare git repository acting as origin; when set, PR heads and bases must exist in it. */
  remoteDir?: string;
  /** Collaborator permissions by login; logins not listed get 404 from the permission endpoint. */
  permissions?: Record<string, Permission>;
  issues?: SeedIssue[];
  /** The token may cancel workflow runs (the workflow grants `actions: write`); default true. */
  actionsWrite?: boolean;
}

/** A workflow run GitHub knows of; `onCancel` plays the runner stopping the job (e.g. SIGTERM to it). */
export interface WorkflowRunState {
  id: number;
  status: 'queued' | 'in_progress' | 'completed';
  conclusion?: 'cancelled' | 'success';
  onCancel?: () => void;
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
}

export interface EmulatorState {
  comments: Map<number, CommentState>;
  workflowRuns: Map<number, WorkflowRunState>;
  pulls: PullState[];
  /** Issues and pull requests (which are issues too), by number. */
  issues: Map<number, IssueState>;
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
  /** OpenAPI, auth and emulation problems; tests should assert this stays empty. */
  violations: string[];
  state: EmulatorState;
  /** Seeds a comment by someone else (e.g. the maintainer's `/agent ...`). */
  addComment(issueNumber: number, user: string, body: string): CommentState;
  /** Someone edits a comment in the web editor (a new version; the browser sends CRLF line ends). */
  editComment(commentId: number, body: string): CommentState;
  /** Conditional GETs answered 304 Not Modified, which GitHub does not count against the rate limit. */
  notModified: number;
  /** Registers a workflow run (in progress unless said otherwise) that the API may be asked to cancel. */
  addWorkflowRun(
    run: Omit<WorkflowRunState, 'status'> & { status?: WorkflowRunState['status'] },
  ): WorkflowRunState;
  /** Makes the next `times` (default 1) requests matching method and path regex fail with `response`. */
  failNext(match: { method?: string; path: RegExp }, response: InjectedResponse, times?: number): void;
  /** Calls other than GET/HEAD, in order. */
  writes(): RecordedCall[];
  close(): Promise<void>;
}

/** GitHub's answer when content is created too fast; plugin-throttling recognises the message. */
export function secondaryRateLimit(retryAfterSeconds = 1): InjectedResponse {
  return {
    status: 403,
    headers: { 'retry-after': String(retryAfterSeconds) },
    body: {
      message:
        'You have exceeded a secondary rate limit. Please wait a few minutes before you try again. ' +
        'If you reach out to GitHub Support for help, please include the request ID.',
      documentation_url:
        'https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits',
    },
  };
}

// ---------------------------------------------------------------------------------------------
// JSON bodies shaped like GitHub's (every field the OpenAPI schemas require)

const BOT_LOGIN = 'github-actions[bot]';
const BOT_ID = 41898282;
const WEB = 'https://github.com';
const DOCS = 'https://docs.github.com/rest';
const REACTIONS = ['+1', '-1', 'laugh', 'confused', 'heart', 'hooray', 'rocket', 'eyes'] as const;

/** GitHub timestamps: ISO 8601 in UTC without milliseconds. */
function timestamp(date = new Date()): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function stableNumber(text: string, modulo = 90_000_000): number {
  return (createHash('sha256').update(text).digest().readUInt32BE(0) % modulo) + 1_000_000;
}

function nodeId(prefix: string, key: string): string {
  return `${prefix}_${Buffer.from(key).toString('base64url')}`;
}

interface Ctx {
  api: string;
  owner: string;
  repo: string;
  defaultBranch: string;
  permissions: Record<string, Permission>;
}

function userJson(ctx: Ctx, login: string, type?: 'User' | 'Bot' | 'Organization') {
  const kind = type ?? (login.endsWith('[bot]') ? 'Bot' : 'User');
  const id = login === BOT_LOGIN ? BOT_ID : stableNumber(`user:${login}`);
  const url = `${ctx.api}/users/${encodeURIComponent(login)}`;
  return {
    login,
    id,
    node_id: nodeId(kind === 'Bot' ? 'BOT' : kind === 'Organization' ? 'O' : 'U', login),
    avatar_url: `https://avatars.githubusercontent.com/u/${id}?v=4`,
    gravatar_id: '',
    url,
    html_url: kind === 'Bot' ? `${WEB}/apps/${login.replace('[bot]', '')}` : `${WEB}/${login}`,
    followers_url: `${url}/followers`,
    following_url: `${url}/following{/other_user}`,
    gists_url: `${url}/gists{/gist_id}`,
    starred_url: `${url}/starred{/owner}{/repo}`,
    subscriptions_url: `${url}/subscriptions`,
    organizations_url: `${url}/orgs`,
    repos_url: `${url}/repos`,
    events_url: `${url}/events{/privacy}`,
    received_events_url: `${url}/received_events`,
    type: kind,
    user_view_type: 'public',
    site_admin: false,
  };
}

function authorAssociation(ctx: Ctx, login: string): string {
  const permission = ctx.permissions[login];
  if (login.toLowerCase() === ctx.owner.toLowerCase()) return 'OWNER';
  return permission === 'admin' || permission === 'write' ? 'COLLABORATOR' : 'NONE';
}

function reactionRollup(url: string, contents: string[]) {
  const counts = Object.fromEntries(REACTIONS.map((r) => [r, contents.filter((c) => c === r).length]));
  return { url: `${url}/reactions`, total_count: contents.length, ...counts };
}

function repositoryJson(ctx: Ctx) {
  const full = `${ctx.owner}/${ctx.repo}`;
  const url = `${ctx.api}/repos/${full}`;
  const created = '2020-01-01T00:00:00Z';
  return {
    id: stableNumber(`repo:${full}`),
    node_id: nodeId('R', full),
    name: ctx.repo,
    full_name: full,
    owner: userJson(ctx, ctx.owner, 'Organization'),
    private: true,
    visibility: 'private',
    html_url: `${WEB}/${full}`,
    description: 'Emulated repository',
    fork: false,
    url,
    archive_url: `${url}/{archive_format}{/ref}`,
    assignees_url: `${url}/assignees{/user}`,
    blobs_url: `${url}/git/blobs{/sha}`,
    branches_url: `${url}/branches{/branch}`,
    collaborators_url: `${url}/collaborators{/collaborator}`,
    comments_url: `${url}/comments{/number}`,
    commits_url: `${url}/commits{/sha}`,
    compare_url: `${url}/compare/{base}...{head}`,
    contents_url: `${url}/contents/{+path}`,
    contributors_url: `${url}/contributors`,
    deployments_url: `${url}/deployments`,
    downloads_url: `${url}/downloads`,
    events_url: `${url}/events`,
    forks_url: `${url}/forks`,
    git_commits_url: `${url}/git/commits{/sha}`,
    git_refs_url: `${url}/git/refs{/sha}`,
    git_tags_url: `${url}/git/tags{/sha}`,
    git_url: `git://github.com/${full}.git`,
    hooks_url: `${url}/hooks`,
    issue_comment_url: `${url}/issues/comments{/number}`,
    issue_events_url: `${url}/issues/events{/number}`,
    issues_url: `${url}/issues{/number}`,
    keys_url: `${url}/keys{/key_id}`,
    labels_url: `${url}/labels{/name}`,
    languages_url: `${url}/languages`,
    merges_url: `${url}/merges`,
    milestones_url: `${url}/milestones{/number}`,
    notifications_url: `${url}/notifications{?since,all,participating}`,
    pulls_url: `${url}/pulls{/number}`,
    releases_url: `${url}/releases{/id}`,
    ssh_url: `git@github.com:${full}.git`,
    stargazers_url: `${url}/stargazers`,
    statuses_url: `${url}/statuses/{sha}`,
    subscribers_url: `${url}/subscribers`,
    subscription_url: `${url}/subscription`,
    tags_url: `${url}/tags`,
    teams_url: `${url}/teams`,
    trees_url: `${url}/git/trees{/sha}`,
    clone_url: `${WEB}/${full}.git`,
    svn_url: `${WEB}/${full}`,
    mirror_url: null,
    homepage: null,
    language: 'TypeScript',
    forks: 0,
    forks_count: 0,
    stargazers_count: 0,
    watchers: 0,
    watchers_count: 0,
    subscribers_count: 1,
    network_count: 0,
    size: 100,
    default_branch: ctx.defaultBranch,
    open_issues: 0,
    open_issues_count: 0,
    is_template: false,
    topics: [],
    has_issues: true,
    has_projects: true,
    has_wiki: false,
    has_pages: false,
    has_downloads: true,
    has_discussions: false,
    archived: false,
    disabled: false,
    license: null,
    allow_forking: false,
    web_commit_signoff_required: false,
    pushed_at: created,
    created_at: created,
    updated_at: created,
  };
}

function issueJson(ctx: Ctx, issue: IssueState, commentCount: number) {
  const url = `${ctx.api}/repos/${ctx.owner}/${ctx.repo}/issues/${issue.number}`;
  const web = `${WEB}/${ctx.owner}/${ctx.repo}`;
  const pullUrl = `${ctx.api}/repos/${ctx.owner}/${ctx.repo}/pulls/${issue.number}`;
  return {
    id: stableNumber(`issue:${issue.number}`),
    node_id: nodeId(issue.pull_request ? 'PR' : 'I', `${ctx.owner}/${ctx.repo}#${issue.number}`),
    url,
    repository_url: `${ctx.api}/repos/${ctx.owner}/${ctx.repo}`,
    labels_url: `${url}/labels{/name}`,
    comments_url: `${url}/comments`,
    events_url: `${url}/events`,
    html_url: `${web}/${issue.pull_request ? 'pull' : 'issues'}/${issue.number}`,
    number: issue.number,
    state: issue.state,
    state_reason: issue.state === 'closed' ? 'completed' : null,
    title: issue.title,
    body: issue.body,
    user: userJson(ctx, issue.user),
    labels: [],
    assignee: null,
    assignees: [],
    milestone: null,
    locked: issue.locked,
    active_lock_reason: null,
    comments: commentCount,
    ...(issue.pull_request
      ? {
          pull_request: {
            url: pullUrl,
            html_url: `${web}/pull/${issue.number}`,
            diff_url: `${web}/pull/${issue.number}.diff`,
            patch_url: `${web}/pull/${issue.number}.patch`,
            merged_at: null,
          },
        }
      : {}),
    closed_at: issue.state === 'closed' ? issue.updated_at : null,
    created_at: issue.created_at,
    updated_at: issue.updated_at,
    author_association: authorAssociation(ctx, issue.user),
    reactions: reactionRollup(url, issue.reactions),
  };
}

function commentJson(ctx: Ctx, comment: CommentState) {
  const repoUrl = `${ctx.api}/repos/${ctx.owner}/${ctx.repo}`;
  const url = `${repoUrl}/issues/comments/${comment.id}`;
  return {
    id: comment.id,
    node_id: nodeId('IC', String(comment.id)),
    url,
    html_url: `${WEB}/${ctx.owner}/${ctx.repo}/issues/${comment.issue_number}#issuecomment-${comment.id}`,
    issue_url: `${repoUrl}/issues/${comment.issue_number}`,
    body: comment.body,
    user: userJson(ctx, comment.user),
    created_at: comment.created_at,
    updated_at: comment.updated_at,
    author_association: authorAssociation(ctx, comment.user),
    performed_via_github_app: null,
    reactions: reactionRollup(url, comment.reactions),
  };
}

function branchJson(ctx: Ctx, ref: string, sha: string) {
  return {
    label: `${ctx.owner}:${ref}`,
    ref,
    sha,
    user: userJson(ctx, ctx.owner, 'Organization'),
    repo: repositoryJson(ctx),
  };
}

/** `full` adds the fields only the single-PR endpoints return (pull-request vs pull-request-simple). */
function pullJson(ctx: Ctx, pull: PullState, commentCount: number, full: boolean) {
  const repoUrl = `${ctx.api}/repos/${ctx.owner}/${ctx.repo}`;
  const url = `${repoUrl}/pulls/${pull.number}`;
  const issueUrl = `${repoUrl}/issues/${pull.number}`;
  const simple = {
    url,
    id: stableNumber(`pull:${pull.number}`),
    node_id: nodeId('PR', `${ctx.owner}/${ctx.repo}!${pull.number}`),
    html_url: pull.html_url,
    diff_url: `${pull.html_url}.diff`,
    patch_url: `${pull.html_url}.patch`,
    issue_url: issueUrl,
    commits_url: `${url}/commits`,
    review_comments_url: `${url}/comments`,
    review_comment_url: `${repoUrl}/pulls/comments{/number}`,
    comments_url: `${issueUrl}/comments`,
    statuses_url: `${repoUrl}/statuses/${pull.head_sha}`,
    number: pull.number,
    state: pull.state,
    locked: false,
    title: pull.title,
    user: userJson(ctx, pull.user),
    body: pull.body,
    labels: [],
    milestone: null,
    active_lock_reason: null,
    created_at: pull.created_at,
    updated_at: pull.created_at,
    closed_at: null,
    merged_at: null,
    merge_commit_sha: null,
    assignee: null,
    assignees: [],
    requested_reviewers: [],
    requested_teams: [],
    head: branchJson(ctx, pull.head, pull.head_sha),
    base: branchJson(ctx, pull.base, pull.base_sha),
    _links: {
      self: { href: url },
      html: { href: pull.html_url },
      issue: { href: issueUrl },
      comments: { href: `${issueUrl}/comments` },
      review_comments: { href: `${url}/comments` },
      review_comment: { href: `${repoUrl}/pulls/comments{/number}` },
      commits: { href: `${url}/commits` },
      statuses: { href: `${repoUrl}/statuses/${pull.head_sha}` },
    },
    author_association: authorAssociation(ctx, pull.user),
    auto_merge: null,
    draft: pull.draft,
  };
  if (!full) return simple;
  return {
    ...simple,
    merged: false,
    mergeable: null,
    rebaseable: null,
    mergeable_state: 'unknown',
    merged_by: null,
    comments: commentCount,
    review_comments: 0,
    maintainer_can_modify: false,
    commits: 1,
    additions: 0,
    deletions: 0,
    changed_files: 0,
  };
}

function validationFailed(errors: Array<Record<string, string>>, docs: string) {
  return { message: 'Validation Failed', errors, documentation_url: docs, status: '422' };
}

/** GitHub's cap on comment and pull request bodies, in characters. */
const MAX_BODY_CHARS = 65_536;

// ---------------------------------------------------------------------------------------------
// Request plumbing

class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
  ) {
    super(`HTTP ${status}`);
  }
}

const notFound = () => new HttpError(404, { message: 'Not Found', documentation_url: DOCS, status: '404' });

interface Reply {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

interface Request {
  method: string;
  headers: IncomingMessage['headers'];
  url: URL;
  body: unknown;
  match: OperationMatch;
}

function git(gitDir: string, args: string[]): Promise<{ ok: boolean; stdout: string }> {
  return new Promise((resolve) => {
    execFile('git', ['--git-dir', gitDir, ...args], (error, stdout) => resolve({ ok: !error, stdout }));
  });
}

/** Commit a branch points at in the origin, or undefined when it does not exist. */
async function branchSha(remoteDir: string, branch: string): Promise<string | undefined> {
  const { ok, stdout } = await git(remoteDir, [
    'rev-parse',
    '--verify',
    '--quiet',
    `refs/heads/${branch}^{commit}`,
  ]);
  return ok ? stdout.trim() : undefined;
}

/** Bodies over GitHub's size cap get a 422, as they would from GitHub. */
function rejectLongBody(resource: 'IssueComment' | 'PullRequest', body: string, docs: string): void {
  if ([...body].length <= MAX_BODY_CHARS) return;
  const message = `Body is too long (maximum is ${MAX_BODY_CHARS} characters)`;
  throw new HttpError(422, validationFailed([{ resource, code: 'custom', field: 'body', message }], docs));
}

/** The `body` of a comment request, refused with a 422 when blank or too long. */
function commentBody(body: unknown, docs: string): string {
  const text = String((body as { body: string }).body);
  if (text.trim() === '') {
    const errors = [{ resource: 'IssueComment', code: 'missing_field', field: 'body' }];
    throw new HttpError(422, validationFailed(errors, docs));
  }
  rejectLongBody('IssueComment', text, docs);
  return text;
}

function intParam(match: OperationMatch, name: string): number {
  return Number(match.params[name]);
}

function pageOf<T>(items: T[], url: URL, base: string): { page: T[]; link?: string } {
  const perPage = Math.min(Math.max(Number(url.searchParams.get('per_page') ?? 30) || 30, 1), 100);
  const page = Math.max(Number(url.searchParams.get('page') ?? 1) || 1, 1);
  const last = Math.max(Math.ceil(items.length / perPage), 1);
  const linkTo = (n: number) => {
    const next = new URL(url.pathname + url.search, base);
    next.searchParams.set('per_page', String(perPage));
    next.searchParams.set('page', String(n));
    return next.toString();
  };
  const rels: string[] = [];
  if (page < last) rels.push(`<${linkTo(page + 1)}>; rel="next"`, `<${linkTo(last)}>; rel="last"`);
  if (page > 1) rels.push(`<${linkTo(1)}>; rel="first"`, `<${linkTo(Math.min(page - 1, last))}>; rel="prev"`);
  return {
    page: items.slice((page - 1) * perPage, page * perPage),
    ...(rels.length ? { link: rels.join(', ') } : {}),
  };
}

// ---------------------------------------------------------------------------------------------
// The emulator

export async function startGitHubEmulator(options: EmulatorOptions = {}): Promise<GitHubEmulator> {
  const owner = options.owner ?? 'octo-org';
  const repo = options.repo ?? 'hello-world';
  const defaultBranch = options.defaultBranch ?? 'main';
  const permissions = options.permissions ?? {};
  /** Who the token writes as. */
  const actor = options.tokenUser ?? options.appBot ?? BOT_LOGIN;
  const calls: RecordedCall[] = [];
  const violations: string[] = [];
  const state: EmulatorState = { comments: new Map(), workflowRuns: new Map(), pulls: [], issues: new Map() };
  const injected: Array<{ method?: string; path: RegExp; response: InjectedResponse; left: number }> = [];
  /** Reaction JSON by `target:content`, so repeating a reaction returns the same one with 200. */
  const reactionsByKey = new Map<string, unknown>();
  let nextCommentId = 1_000_000_001;
  let nextReactionId = 100_000_001;
  let remaining = 5000;
  const ctx: Ctx = { api: '', owner, repo, defaultBranch, permissions };
  const placeholderSha = (ref: string) => createHash('sha1').update(`ref:${ref}`).digest('hex');

  const addIssue = (seed: SeedIssue): IssueState => {
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
    state.issues.set(issue.number, issue);
    return issue;
  };
  for (const seed of options.issues ?? []) {
    const issue = addIssue(seed);
    if (seed.pull_request) {
      state.pulls.push({
        number: issue.number,
        title: issue.title,
        body: issue.body,
        head: seed.pull_request.head,
        base: defaultBranch,
        state: issue.state,
        html_url: `${WEB}/${owner}/${repo}/pull/${issue.number}`,
        draft: false,
        user: issue.user,
        head_sha: placeholderSha(seed.pull_request.head),
        base_sha: placeholderSha(defaultBranch),
        created_at: issue.created_at,
      });
    }
  }

  const commentCount = (issueNumber: number) =>
    [...state.comments.values()].filter((c) => c.issue_number === issueNumber).length;

  const requireIssue = (n: number): IssueState => {
    const issue = state.issues.get(n);
    if (!issue) throw notFound();
    return issue;
  };

  const requireComment = (id: number): CommentState => {
    const comment = state.comments.get(id);
    if (!comment) throw notFound();
    return comment;
  };

  const createComment = (issueNumber: number, user: string, body: string): CommentState => {
    const now = timestamp();
    const comment: CommentState = {
      id: nextCommentId++,
      issue_number: issueNumber,
      user,
      body,
      versions: [body],
      reactions: [],
      created_at: now,
      updated_at: now,
    };
    state.comments.set(comment.id, comment);
    return comment;
  };

  const react = (key: string, contents: string[], content: string): Reply => {
    const existing = reactionsByKey.get(`${key}:${content}`);
    if (existing) return { status: 200, body: existing };
    const id = nextReactionId++;
    const reaction = {
      id,
      node_id: nodeId('REA', String(id)),
      user: userJson(ctx, actor),
      content,
      created_at: timestamp(),
    };
    reactionsByKey.set(`${key}:${content}`, reaction);
    contents.push(content);
    return { status: 201, body: reaction };
  };

  const createPull = async (body: Record<string, unknown>): Promise<Reply> => {
    const docs = `${DOCS}/pulls/pulls#create-a-pull-request`;
    const rawHead = String(body.head);
    const ownPrefix = `${owner.toLowerCase()}:`;
    const head = rawHead.toLowerCase().startsWith(ownPrefix) ? rawHead.slice(ownPrefix.length) : rawHead;
    const base = String(body.base);
    if (typeof body.title !== 'string' && body.issue === undefined) {
      throw new HttpError(
        422,
        validationFailed([{ resource: 'PullRequest', field: 'title', code: 'missing_field' }], docs),
      );
    }
    if (typeof body.body === 'string') rejectLongBody('PullRequest', body.body, docs);
    if (body.issue !== undefined) {
      violations.push('not emulated: POST pulls with `issue` (converting an issue into a pull request)');
      throw new HttpError(501, { message: 'Not emulated' });
    }
    let headSha = placeholderSha(head);
    let baseSha = placeholderSha(base);
    if (options.remoteDir) {
      const [h, b] = await Promise.all([
        branchSha(options.remoteDir, head),
        branchSha(options.remoteDir, base),
      ]);
      const invalid = [...(h ? [] : ['head']), ...(b ? [] : ['base'])];
      if (invalid.length) {
        const errors = invalid.map((field) => ({ resource: 'PullRequest', field, code: 'invalid' }));
        throw new HttpError(422, validationFailed(errors, docs));
      }
      headSha = h as string;
      baseSha = b as string;
      if ((await git(options.remoteDir, ['merge-base', '--is-ancestor', headSha, baseSha])).ok) {
        const message = `No commits between ${base} and ${head}`;
        throw new HttpError(
          422,
          validationFailed([{ resource: 'PullRequest', code: 'custom', message }], docs),
        );
      }
    }
    if (state.pulls.some((p) => p.state === 'open' && p.head === head)) {
      const message = `A pull request already exists for ${owner}:${head}.`;
      throw new HttpError(
        422,
        validationFailed([{ resource: 'PullRequest', code: 'custom', message }], docs),
      );
    }
    const number = Math.max(0, ...state.issues.keys()) + 1;
    const issue = addIssue({
      number,
      title: String(body.title),
      body: typeof body.body === 'string' ? body.body : '',
      user: actor,
      pull_request: { head },
    });
    const pull: PullState = {
      number,
      title: issue.title,
      body: issue.body,
      head,
      base,
      state: 'open',
      html_url: `${WEB}/${owner}/${repo}/pull/${number}`,
      draft: body.draft === true,
      user: actor,
      head_sha: headSha,
      base_sha: baseSha,
      created_at: issue.created_at,
    };
    state.pulls.push(pull);
    return {
      status: 201,
      body: pullJson(ctx, pull, 0, true),
      headers: { location: `${ctx.api}/repos/${owner}/${repo}/pulls/${number}` },
    };
  };

  const listPulls = (url: URL): Reply => {
    const wanted = url.searchParams.get('state') ?? 'open';
    const head = url.searchParams.get('head');
    const base = url.searchParams.get('base');
    // GitHub only honours `head` in the `owner:branch` form; a bare branch name filters nothing.
    const headFilter = head?.includes(':') ? head : undefined;
    const pulls = state.pulls
      .filter((p) => wanted === 'all' || p.state === wanted)
      .filter((p) => !headFilter || headFilter.toLowerCase() === `${owner}:${p.head}`.toLowerCase())
      .filter((p) => !base || p.base === base)
      .sort((a, b) => b.number - a.number);
    const { page, link } = pageOf(pulls, url, ctx.api);
    return {
      status: 200,
      body: page.map((p) => pullJson(ctx, p, commentCount(p.number), false)),
      ...(link ? { headers: { link } } : {}),
    };
  };

  const handlers: Record<string, (r: Request) => Reply | Promise<Reply>> = {
    'repos/get': () => ({ status: 200, body: repositoryJson(ctx) }),
    'issues/get': ({ match }) => {
      const issue = requireIssue(intParam(match, 'issue_number'));
      return { status: 200, body: issueJson(ctx, issue, commentCount(issue.number)) };
    },
    'issues/list-comments': ({ match, url }) => {
      const issue = requireIssue(intParam(match, 'issue_number'));
      const since = url.searchParams.get('since');
      const all = [...state.comments.values()]
        .filter((c) => c.issue_number === issue.number && (!since || c.updated_at >= since))
        .sort((a, b) => a.id - b.id);
      const { page, link } = pageOf(all, url, ctx.api);
      return {
        status: 200,
        body: page.map((c) => commentJson(ctx, c)),
        ...(link ? { headers: { link } } : {}),
      };
    },
    'issues/create-comment': ({ match, body }) => {
      const issue = requireIssue(intParam(match, 'issue_number'));
      const text = commentBody(body, `${DOCS}/issues/comments#create-an-issue-comment`);
      const comment = createComment(issue.number, actor, text);
      const json = commentJson(ctx, comment);
      return { status: 201, body: json, headers: { location: json.url } };
    },
    'issues/get-comment': ({ match, headers }) => {
      const comment = requireComment(intParam(match, 'comment_id'));
      // A weak validator of what the answer holds; GitHub answers a matching If-None-Match with an empty 304.
      const etag = `W/"${createHash('sha256').update(`${comment.body}\n${comment.updated_at}`).digest('hex')}"`;
      if (headers['if-none-match'] === etag) return { status: 304, headers: { etag } };
      return { status: 200, body: commentJson(ctx, comment), headers: { etag } };
    },
    'issues/update-comment': ({ match, body }) => {
      const comment = requireComment(intParam(match, 'comment_id'));
      comment.body = commentBody(body, `${DOCS}/issues/comments#update-an-issue-comment`);
      comment.versions.push(comment.body);
      comment.updated_at = timestamp();
      return { status: 200, body: commentJson(ctx, comment) };
    },
    'reactions/create-for-issue-comment': ({ match, body }) => {
      const comment = requireComment(intParam(match, 'comment_id'));
      return react(`comment:${comment.id}`, comment.reactions, (body as { content: string }).content);
    },
    'reactions/create-for-issue': ({ match, body }) => {
      const issue = requireIssue(intParam(match, 'issue_number'));
      return react(`issue:${issue.number}`, issue.reactions, (body as { content: string }).content);
    },
    'repos/get-collaborator-permission-level': ({ match }) => {
      const login = match.params.username ?? '';
      const permission = Object.entries(permissions).find(
        ([name]) => name.toLowerCase() === login.toLowerCase(),
      );
      if (!permission) throw notFound();
      const [name, level] = permission;
      const flags = {
        admin: level === 'admin',
        maintain: level === 'admin',
        push: level === 'admin' || level === 'write',
        triage: level !== 'none',
        pull: level !== 'none',
      };
      const user = { ...userJson(ctx, name), permissions: flags, role_name: level };
      return { status: 200, body: { permission: level, role_name: level, user } };
    },
    'users/get-authenticated': () => {
      if (options.tokenUser === undefined) {
        throw new HttpError(403, {
          message: 'Resource not accessible by integration',
          documentation_url: `${DOCS}/users/users#get-the-authenticated-user`,
          status: '403',
        });
      }
      const created = timestamp(new Date('2015-01-01T00:00:00Z'));
      const profile = { name: null, company: null, blog: '', location: null, email: null, hireable: null };
      const counts = { bio: null, public_repos: 1, public_gists: 0, followers: 0, following: 0 };
      const json = { ...userJson(ctx, options.tokenUser), ...profile, ...counts };
      return { status: 200, body: { ...json, created_at: created, updated_at: created } };
    },
    'pulls/create': ({ body }) => createPull(body as Record<string, unknown>),
    'pulls/list': ({ url }) => listPulls(url),
    'pulls/update': ({ match, body }) => {
      const pull = state.pulls.find((p) => p.number === intParam(match, 'pull_number'));
      if (!pull) throw notFound();
      const patch = body as { title?: string; body?: string; state?: 'open' | 'closed' };
      if (typeof patch.title === 'string') pull.title = patch.title;
      if (typeof patch.body === 'string') pull.body = patch.body;
      if (patch.state) pull.state = patch.state;
      return { status: 200, body: pullJson(ctx, pull, commentCount(pull.number), true) };
    },
    'actions/cancel-workflow-run': ({ match }) => {
      const docs = `${DOCS}/actions/workflow-runs#cancel-a-workflow-run`;
      if (options.actionsWrite === false) {
        throw new HttpError(403, {
          message: 'Resource not accessible by integration',
          documentation_url: docs,
          status: '403',
        });
      }
      const run = state.workflowRuns.get(intParam(match, 'run_id'));
      if (!run) throw notFound();
      if (run.status === 'completed') {
        throw new HttpError(409, {
          message: 'Cannot cancel a workflow run that is completed.',
          documentation_url: docs,
          status: '409',
        });
      }
      run.status = 'completed';
      run.conclusion = 'cancelled';
      run.onCancel?.();
      return { status: 202, body: {} };
    },
    'pulls/list-files': async ({ match, url }) => {
      const pull = state.pulls.find((p) => p.number === intParam(match, 'pull_number'));
      if (!pull) throw notFound();
      if (!options.remoteDir) {
        violations.push('not emulated: pulls/list-files without a remoteDir to diff');
        throw new HttpError(501, { message: 'Not emulated' });
      }
      const files = await diffFiles(options.remoteDir, pull.base, pull.head);
      const { page, link } = pageOf(files, url, ctx.api);
      const web = `${WEB}/${owner}/${repo}`;
      const body = page.map((file) => ({
        ...file,
        changes: file.additions + file.deletions,
        blob_url: `${web}/blob/${file.sha}/${encodeURI(file.filename)}`,
        raw_url: `${web}/raw/${file.sha}/${encodeURI(file.filename)}`,
        contents_url: `${ctx.api}/repos/${owner}/${repo}/contents/${encodeURI(file.filename)}?ref=${file.sha}`,
      }));
      return { status: 200, body, ...(link ? { headers: { link } } : {}) };
    },
    'pulls/get': ({ match }) => {
      const pull = state.pulls.find((p) => p.number === intParam(match, 'pull_number'));
      if (!pull) throw notFound();
      return { status: 200, body: pullJson(ctx, pull, commentCount(pull.number), true) };
    },
  };

  /** A 401 reply when a token is configured and the request does not present it. */
  const authFailure = (req: IncomingMessage, url: URL): Reply | undefined => {
    if (options.token === undefined) return undefined;
    const auth = req.headers.authorization;
    if (!auth) {
      violations.push(`unauthenticated: ${req.method} ${url.pathname}`);
      return {
        status: 401,
        body: { message: 'Requires authentication', documentation_url: DOCS, status: '401' },
      };
    }
    const presented = auth.replace(/^(token|bearer)\s+/i, '');
    if (presented !== auth && presented === options.token) return undefined;
    violations.push(`bad credentials: ${req.method} ${url.pathname}`);
    return { status: 401, body: { message: 'Bad credentials', documentation_url: DOCS, status: '401' } };
  };

  /** Checks between auth and the handler: the OpenAPI description, injected failures, the repo. */
  const preflight = (
    req: IncomingMessage,
    url: URL,
    body: unknown,
    call: RecordedCall,
  ): Reply | OperationMatch => {
    const method = req.method ?? 'GET';
    const check = checkRequest(method, url.pathname + url.search, body);
    if (check.match) call.operationId = check.match.operationId;
    for (const p of check.problems) violations.push(`${method} ${url.pathname}: ${p.message}`);
    const rule = injected.find(
      (r) => (!r.method || r.method.toUpperCase() === method) && r.path.test(url.pathname),
    );
    if (rule) {
      if (--rule.left <= 0) injected.splice(injected.indexOf(rule), 1);
      const { status, headers, body: replyBody } = rule.response;
      return { status, body: replyBody ?? { message: 'Injected failure' }, ...(headers ? { headers } : {}) };
    }
    if (!check.match || check.problems.some((p) => p.kind === 'path')) throw notFound();
    if (check.problems.length) {
      const details = check.problems.map((p) => p.message).join('\n');
      return {
        status: 422,
        body: { message: `Invalid request.\n\n${details}`, documentation_url: DOCS, status: '422' },
      };
    }
    const { params } = check.match;
    if (params.owner !== undefined && params.repo !== undefined) {
      const sameRepo =
        params.owner.toLowerCase() === owner.toLowerCase() &&
        params.repo.toLowerCase() === repo.toLowerCase();
      if (!sameRepo) throw notFound();
    }
    return check.match;
  };

  const dispatch = async (
    req: IncomingMessage,
    url: URL,
    raw: string,
    call: RecordedCall,
  ): Promise<Reply> => {
    const denied = authFailure(req, url);
    if (denied) return denied;
    let body: unknown;
    if (raw.trim() !== '') {
      try {
        body = JSON.parse(raw);
        call.body = body;
      } catch {
        call.body = raw;
        violations.push(`${req.method} ${url.pathname}: body is not JSON`);
        return {
          status: 400,
          body: { message: 'Problems parsing JSON', documentation_url: DOCS, status: '400' },
        };
      }
    }
    const outcome = preflight(req, url, body, call);
    if (!('operationId' in outcome)) return outcome;
    const handler = handlers[outcome.operationId];
    if (!handler) {
      violations.push(`not emulated: ${req.method} ${url.pathname} (${outcome.operationId})`);
      return { status: 501, body: { message: `Not emulated: ${outcome.operationId}` } };
    }
    return handler({ method: req.method ?? 'GET', headers: req.headers, url, body, match: outcome });
  };

  const send = (res: ServerResponse, reply: Reply): void => {
    if (reply.status === 304) emulator.notModified++;
    else remaining = Math.max(remaining - 1, 0);
    const headers: Record<string, string> = {
      'content-type': 'application/json; charset=utf-8',
      'x-ratelimit-limit': '5000',
      'x-ratelimit-remaining': String(remaining),
      'x-ratelimit-used': String(5000 - remaining),
      'x-ratelimit-reset': String(Math.floor(Date.now() / 1000) + 3600),
      'x-ratelimit-resource': 'core',
      'x-github-api-version-selected': '2022-11-28',
      'x-github-request-id': `EMU:${calls.length.toString(16).toUpperCase().padStart(8, '0')}`,
      ...reply.headers,
    };
    res.writeHead(reply.status, headers);
    res.end(reply.body === undefined ? '' : JSON.stringify(reply.body));
  };

  const server = createServer((req, res) => {
    const at = Date.now();
    const url = new URL(req.url ?? '/', 'http://emulator.invalid');
    const call: RecordedCall = {
      method: req.method ?? 'GET',
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      body: undefined,
      status: 0,
      at,
    };
    calls.push(call);
    readBody(req)
      .then((raw) => dispatch(req, url, raw, call))
      .catch((error: unknown) => {
        if (error instanceof HttpError) return { status: error.status, body: error.body };
        violations.push(`emulator error on ${req.method} ${url.pathname}: ${String(error)}`);
        return { status: 500, body: { message: 'Emulator error' } };
      })
      .then((reply) => {
        call.status = reply.status;
        call.response = reply.body;
        send(res, reply);
      });
  });

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  ctx.api = `http://127.0.0.1:${port}`;

  const emulator: GitHubEmulator = {
    url: ctx.api,
    calls,
    violations,
    state,
    notModified: 0,
    addWorkflowRun: (run) => {
      const added: WorkflowRunState = { status: 'in_progress', ...run };
      state.workflowRuns.set(added.id, added);
      return added;
    },
    editComment: (commentId, body) => {
      const comment = requireComment(commentId);
      comment.body = body.replace(/\r?\n/g, '\r\n');
      comment.versions.push(comment.body);
      comment.updated_at = timestamp(new Date(Math.max(Date.now(), Date.parse(comment.updated_at) + 1000)));
      return comment;
    },
    addComment: (issueNumber, user, body) => {
      if (!state.issues.has(issueNumber)) {
        throw new Error(`addComment: no issue #${issueNumber} in the emulator`);
      }
      return createComment(issueNumber, user, body);
    },
    failNext: (match, response, times = 1) => {
      injected.push({
        ...(match.method ? { method: match.method } : {}),
        path: match.path,
        response,
        left: times,
      });
    },
    writes: () => calls.filter((c) => c.method !== 'GET' && c.method !== 'HEAD'),
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
  return emulator;
}
