// What the action asks of the GitHub REST API, one method per question or write, over octokit.ts.
import { BESIDE_OTHER_WRITES, createOctokit, type ApiOptions, type Octokit } from './octokit.js';
import type { DispatchedIssue } from './issue-triggers.js';

export type Permission = 'admin' | 'write' | 'read' | 'none';
export type Reaction = 'eyes' | 'rocket' | 'confused' | '+1' | '-1' | 'laugh' | 'heart' | 'hooray';

export interface IssueComment {
  id: number;
  body: string;
  /** The body as GitHub renders it (asked with media type full+json): its images carry signed URLs. */
  bodyHtml?: string;
  user: string;
  userType: string;
  /** GitHub's author_association: OWNER, MEMBER, COLLABORATOR, CONTRIBUTOR, NONE, … */
  association: string;
  createdAt: string;
  updatedAt: string;
  htmlUrl: string;
}

/** A review comment on a pull request's line (or file), as the action reads it. */
export interface ReviewComment extends IssueComment {
  /** The comment it answers; absent on the comment that starts a thread. */
  inReplyTo?: number;
  reviewId?: number;
  path: string;
  /** The line commented on (the last of a range) in the current diff, or the original one when outdated. */
  line?: number;
  startLine?: number;
  /** The comment's line is no longer in the pull request's diff. */
  outdated?: boolean;
  diffHunk: string;
}

/**
 * The rendered body (body_html beside body and body_text) of a pull request's reviews and review comments:
 * GitHub's REST docs for these endpoints list the `vnd.github-commitcomment` media types, not the
 * `vnd.github` ones of issues and issue comments (https://docs.github.com/rest/pulls/reviews#list-reviews-for-a-pull-request,
 * https://docs.github.com/rest/pulls/comments#list-review-comments-on-a-pull-request). Octokit's
 * `mediaType.format` would write `vnd.github.v3.full+json`, so the header is given whole.
 */
const REVIEW_BODY_FULL = { accept: 'application/vnd.github-commitcomment.full+json' } as const;

/** A submitted review of a pull request: its body is a comment of the conversation, dated when submitted. */
export interface SubmittedReview extends IssueComment {
  /** APPROVED, CHANGES_REQUESTED, COMMENTED or DISMISSED. */
  state: string;
}

/** Who writes when the workflow's own GITHUB_TOKEN is used. */
export const WORKFLOW_BOT = 'github-actions[bot]';

/** GitHub's GET requests only: what the github tool may ask, through the same throttling as everything else. */
export type ReadRequest = Octokit['request'];

/** How long one answer about a person's permission serves further checks. */
const PERMISSION_FRESH_MS = 60_000;

export class GitHubApi {
  readonly #octokit: Octokit;
  /** Requests made for the github tool and the first message's map. */
  reads = 0;
  readonly #repo: { owner: string; repo: string };
  readonly #permissions = new Map<string, { at: number; answer: Promise<Permission> }>();
  #self: Promise<string | undefined> | undefined;
  /** A classic token's scopes (GitHub's X-OAuth-Scopes on `GET /user`); undefined for any other token. */
  #scopes: string[] | undefined;
  /** The login our own reaction came back with: who this token writes as, whatever kind of token it is. */
  #reactedAs: string | undefined;
  /** The first 👀 on its way, sent without this client: who it comes back as, `reactedAs` is told. */
  #reacting: Promise<unknown> = Promise.resolve();
  #workflows: Promise<boolean | undefined> | undefined;

  constructor(options: ApiOptions) {
    this.#repo = { owner: options.owner, repo: options.repo };
    this.#octokit = createOctokit(options);
  }

  get owner(): string {
    return this.#repo.owner;
  }

  get repo(): string {
    return this.#repo.repo;
  }

  /**
   * The user's permission on the repository; a stranger (404) has none. One answer serves every check made
   * within PERMISSION_FRESH_MS (the gate's, the thread's authors', the pictures' authors'), so the start of a
   * run asks GitHub once per person; a later check asks again, and a failed one is not kept.
   */
  permission(username: string): Promise<Permission> {
    const now = Date.now();
    const kept = this.#permissions.get(username);
    if (kept && now - kept.at < PERMISSION_FRESH_MS) return kept.answer;
    const answer = this.#askPermission(username);
    this.#permissions.set(username, { at: now, answer });
    answer.catch(() => {
      if (this.#permissions.get(username)?.answer === answer) this.#permissions.delete(username);
    });
    return answer;
  }

  async #askPermission(username: string): Promise<Permission> {
    try {
      const { data } = await this.#octokit.rest.repos.getCollaboratorPermissionLevel({
        ...this.#repo,
        username,
      });
      return (['admin', 'write', 'read'] as const).find((level) => level === data.permission) ?? 'none';
    } catch (error) {
      if (statusOf(error) === 404) return 'none';
      throw error;
    }
  }

  /** An issue (or pull request) as a dispatch names it: what a comment's payload would have carried. */
  async issue(issueNumber: number): Promise<DispatchedIssue> {
    const { data } = await this.#octokit.rest.issues.get({ ...this.#repo, issue_number: issueNumber });
    return {
      issueNumber: data.number,
      isPullRequest: data.pull_request != null,
      issueTitle: data.title,
      issueBody: data.body ?? '',
      issueAuthor: data.user?.login ?? 'ghost',
      issueAuthorAssociation: data.author_association ?? 'NONE',
      issueState: data.state,
      locked: data.locked,
      htmlUrl: data.html_url,
    };
  }

  /** Reacts to an issue (or pull request) itself: what a label, an assignment or a dispatch asked on. */
  /** Reacts to an issue (or PR) itself; `beside` sends it beside the write in flight (a run's last one). */
  async reactToIssue(issueNumber: number, content: Reaction, { beside = false } = {}): Promise<void> {
    await this.#octokit.rest.reactions.createForIssue({
      ...this.#repo,
      issue_number: issueNumber,
      content,
      ...(beside ? BESIDE_OTHER_WRITES : {}),
    });
  }

  async defaultBranch(): Promise<string> {
    const { data } = await this.#octokit.rest.repos.get(this.#repo);
    return data.default_branch;
  }

  /**
   * The hosts GitHub serves its packages from (its registries and their storage), as `GET /meta` lists them
   * in `domains.packages`: asked, never written down, since they are GitHub's to move. An answer without the
   * field (an older GitHub Enterprise Server) is an error that says so.
   */
  async packageHosts(): Promise<string[]> {
    const { data } = await this.#octokit.rest.meta.get();
    const hosts = data.domains?.packages;
    if (!Array.isArray(hosts)) throw new Error('its answer has no domains.packages');
    return hosts;
  }

  /** Reacts to an issue (or PR conversation) comment, or to a review comment on a line (`beside`: as above). */
  async react(
    commentId: number,
    content: Reaction,
    on: 'issue' | 'review' = 'issue',
    { beside = false } = {},
  ): Promise<void> {
    const request = { ...this.#repo, comment_id: commentId, content, ...(beside ? BESIDE_OTHER_WRITES : {}) };
    const { data } =
      on === 'issue'
        ? await this.#octokit.rest.reactions.createForIssueComment(request)
        : await this.#octokit.rest.reactions.createForPullRequestReviewComment(request);
    this.#reactedAs ??= data.user?.login;
  }

  /** The login a reaction sent without this client came back with (action/start.ts's 👀). */
  reactedAs(login: string | undefined): void {
    this.#reactedAs ??= login;
  }

  /** The first 👀 is on its way (its login, once back, goes to `reactedAs`): `mayChangeWorkflows` waits for it. */
  reacting(sent: Promise<unknown>): void {
    this.#reacting = sent.catch(() => undefined);
  }

  /**
   * Whether this token may create, change or delete files under `.github/workflows/`, where its kind tells
   * without trying: the workflow's own token (it writes as github-actions[bot]) never has the workflows
   * permission; a classic personal token has it with the `workflow` scope. Undefined for an app's or a
   * fine-grained token, whose permissions GitHub does not tell: a refusal says it then.
   */
  mayChangeWorkflows(): Promise<boolean | undefined> {
    this.#workflows ??= (async () => {
      if (await this.selfLogin()) return this.#scopes && this.#scopes.includes('workflow');
      await this.#reacting;
      return this.#reactedAs === WORKFLOW_BOT ? false : undefined;
    })();
    return this.#workflows;
  }

  /**
   * The login the token writes as, asked once: a personal access token's user. The workflow's token and an
   * app's token may not ask (403), and write as a bot anyway, so the answer is then undefined.
   */
  selfLogin(): Promise<string | undefined> {
    this.#self ??= this.#octokit.rest.users.getAuthenticated().then(
      ({ data, headers }) => {
        const scopes = headers['x-oauth-scopes'];
        if (typeof scopes === 'string') this.#scopes = scopes.split(',').map((scope) => scope.trim());
        return data.login;
      },
      () => undefined,
    );
    return this.#self;
  }

  /**
   * The login this action writes as: a personal token's user, else the login our reaction came back with
   * (an app's bot), else the workflow token's bot.
   */
  async identity(): Promise<string> {
    return (await this.selfLogin()) ?? this.#reactedAs ?? WORKFLOW_BOT;
  }

  /** Whether this action (an earlier run with the same token) wrote something. Any other bot did not. */
  async wroteIt(author: { user: string }): Promise<boolean> {
    return author.user.toLowerCase() === (await this.identity()).toLowerCase();
  }

  /** The issue's comments, oldest first, each with its rendered HTML too. */
  async comments(issueNumber: number): Promise<IssueComment[]> {
    const all = await this.#octokit.paginate(this.#octokit.rest.issues.listComments, {
      ...this.#repo,
      issue_number: issueNumber,
      per_page: 100,
      mediaType: { format: 'full+json' },
    });
    return all.map(commentOf);
  }

  /** The issue's (or pull request's) description as GitHub renders it, with its images' signed URLs. */
  async issueHtml(issueNumber: number): Promise<string> {
    const { data } = await this.#octokit.rest.issues.get({
      ...this.#repo,
      issue_number: issueNumber,
      mediaType: { format: 'full+json' },
    });
    return data.body_html ?? '';
  }

  /**
   * A request function that only reads: anything but a GET is refused before it is sent. The github tool's
   * answers come through it, counted in `reads`. A redirect is never followed: GitHub answers one for an
   * issue transferred to another repository, which this repository's reader must not show as its own. A
   * read that asks for `redirect: 'manual'` itself (a job's log, a signed URL) gets the redirect as its
   * answer; any other read throws `Redirected`, saying where it led.
   */
  readOnly(): ReadRequest {
    const octokit = this.#octokit;
    const read = (async (route: string, params?: Record<string, unknown>) => {
      const method = (params?.method as string | undefined) ?? route.split(' ')[0];
      if (!route.startsWith('GET ') || (method && method.toUpperCase() !== 'GET'))
        throw new Error(`the github tool only reads; ${route} is refused`);
      this.reads++;
      const options = (params?.request ?? {}) as Record<string, unknown>;
      const answer = await octokit.request(route, {
        ...params,
        request: { ...options, redirect: 'manual' },
      });
      if (options.redirect !== 'manual' && REDIRECTS.has(answer.status))
        throw new Redirected(route, answer.status, String(answer.headers.location ?? ''));
      return answer;
    }) as unknown as ReadRequest;
    return read;
  }

  /** The new comment, with its body as GitHub holds it and the answer's ETag (see `updateComment`). */
  async createComment(issueNumber: number, body: string): Promise<WrittenComment & { htmlUrl: string }> {
    const { data, headers } = await this.#octokit.rest.issues.createComment({
      ...this.#repo,
      issue_number: issueNumber,
      body,
    });
    return { id: data.id, htmlUrl: data.html_url, ...written(data.body, headers.etag) };
  }

  /**
   * The body as GitHub now holds it, and the ETag of that answer: a representation of the comment as a GET
   * shows it, so a later conditional GET with it costs nothing until someone else edits the comment. (If
   * GitHub's ETag for a write differs from its GET's, that GET is a 200 once, as without it.)
   */
  async updateComment(commentId: number, body: string): Promise<WrittenComment> {
    const { data, headers } = await this.#octokit.rest.issues.updateComment({
      ...this.#repo,
      comment_id: commentId,
      body,
    });
    return { id: data.id, ...written(data.body, headers.etag) };
  }

  /**
   * A comment's body when it changed since `etag` (a conditional GET: a 304 costs no rate limit), with its new
   * ETag; undefined when it did not change.
   */
  async commentIfChanged(
    commentId: number,
    etag?: string,
  ): Promise<{ body: string; etag?: string } | undefined> {
    try {
      const { data, headers } = await this.#octokit.rest.issues.getComment({
        ...this.#repo,
        comment_id: commentId,
        ...(etag ? { headers: { 'if-none-match': etag } } : {}),
      });
      return { body: data.body ?? '', ...(headers.etag ? { etag: headers.etag } : {}) };
    } catch (error) {
      if (statusOf(error) === 304) return undefined;
      throw error;
    }
  }

  /**
   * Asks GitHub to cancel a workflow run: 'cancelling' when accepted, 'finished' when it already ended (409),
   * 'forbidden' when the token may not (the workflow lacks `actions: write`), 'unknown' when there is no such run.
   */
  async cancelRun(runId: number): Promise<'cancelling' | 'finished' | 'forbidden' | 'unknown'> {
    try {
      await this.#octokit.rest.actions.cancelWorkflowRun({ ...this.#repo, run_id: runId });
      return 'cancelling';
    } catch (error) {
      const status = statusOf(error);
      if (status === 409) return 'finished';
      if (status === 403) return 'forbidden';
      if (status === 404) return 'unknown';
      throw error;
    }
  }

  /**
   * Every run of this repository that has not completed (each status GitHub may show one in, asked at once).
   * GitHub's reference for this list promises no order (the queue orders the runs itself, by
   * `run_started_at`, which a re-run resets) and answers at most 1,000 runs to a `status` filter: far more
   * than the unfinished runs of one repository.
   */
  async unfinishedRuns(): Promise<WorkflowRunInfo[]> {
    const lists = await Promise.all(
      UNFINISHED.map((status) =>
        this.#octokit.paginate(this.#octokit.rest.actions.listWorkflowRunsForRepo, {
          ...this.#repo,
          status,
          per_page: 100,
          exclude_pull_requests: true,
        }),
      ),
    );
    const byId = new Map(lists.flat().map((run) => [run.id, runInfo(run)]));
    return [...byId.values()];
  }

  /** One run's status now, or 'gone' when GitHub has no such run (any more). */
  async runStatus(runId: number): Promise<string> {
    try {
      const { data } = await this.#octokit.rest.actions.getWorkflowRun({ ...this.#repo, run_id: runId });
      return data.status ?? 'unknown';
    } catch (error) {
      if (statusOf(error) === 404) return 'gone';
      throw error;
    }
  }

  /** The head branch of a pull request (for a run triggered on a PR), and who opened it. */
  async pullHead(
    pullNumber: number,
  ): Promise<{ ref: string; base: string; sameRepo: boolean; body: string; author: string }> {
    const { data } = await this.#octokit.rest.pulls.get({ ...this.#repo, pull_number: pullNumber });
    return {
      ref: data.head.ref,
      base: data.base.ref,
      sameRepo: data.head.repo?.full_name === `${this.owner}/${this.repo}`,
      body: data.body ?? '',
      author: data.user?.login ?? 'ghost',
    };
  }

  /** The review comments on a pull request's lines, oldest first. */
  async reviewComments(pullNumber: number): Promise<ReviewComment[]> {
    const all = await this.#octokit.paginate(this.#octokit.rest.pulls.listReviewComments, {
      ...this.#repo,
      pull_number: pullNumber,
      per_page: 100,
      headers: REVIEW_BODY_FULL,
    });
    return all.map((comment) => ({
      ...commentOf(comment),
      ...(comment.in_reply_to_id ? { inReplyTo: comment.in_reply_to_id } : {}),
      ...(comment.pull_request_review_id ? { reviewId: comment.pull_request_review_id } : {}),
      path: comment.path,
      ...lineOf(comment),
      diffHunk: comment.diff_hunk,
    }));
  }

  /** The pull request's submitted reviews (pending ones have no date), oldest first, with rendered bodies. */
  async reviews(pullNumber: number): Promise<SubmittedReview[]> {
    const all = await this.#octokit.paginate(this.#octokit.rest.pulls.listReviews, {
      ...this.#repo,
      pull_number: pullNumber,
      per_page: 100,
      headers: REVIEW_BODY_FULL,
    });
    return all.flatMap((review) =>
      review.submitted_at
        ? [
            {
              ...commentOf({ ...review, created_at: review.submitted_at, updated_at: review.submitted_at }),
              state: review.state,
            },
          ]
        : [],
    );
  }

  /** Replies in a review thread, given its top comment (GitHub takes no reply to a reply). */
  async replyInThread(pullNumber: number, topCommentId: number, body: string): Promise<{ id: number }> {
    const { data } = await this.#octokit.rest.pulls.createReplyForReviewComment({
      ...this.#repo,
      pull_number: pullNumber,
      comment_id: topCommentId,
      body,
    });
    return { id: data.id };
  }

  /**
   * Opens a pull request, or returns the open one that already exists for the branch. It asks to create
   * first, and looks for the open one only when GitHub refuses (422: one already exists), so that a fresh
   * branch, the usual case, costs one round trip (issue 20). `ours` says whether this action (an earlier
   * run) opened it, so that its description may be rewritten: a description a person wrote is left alone.
   */
  async openPull(request: {
    head: string;
    base: string;
    title: string;
    body: string;
    draft?: boolean;
  }): Promise<OpenPull> {
    try {
      const { data } = await this.#octokit.rest.pulls.create({ ...this.#repo, ...request });
      return { number: data.number, htmlUrl: data.html_url, reused: false, ours: true };
    } catch (error) {
      const existing = statusOf(error) === 422 ? await this.findOpenPull(request.head) : undefined;
      if (!existing) throw error;
      return existing;
    }
  }

  /** The open pull request from a branch of this repository, if there is one. */
  async findOpenPull(head: string): Promise<OpenPull | undefined> {
    const { data } = await this.#octokit.rest.pulls.list({
      ...this.#repo,
      head: `${this.owner}:${head}`,
      state: 'open',
    });
    const found = data[0];
    if (!found) return undefined;
    const author = { user: found.user?.login ?? 'ghost', userType: found.user?.type ?? 'User' };
    return { number: found.number, htmlUrl: found.html_url, reused: true, ours: await this.wroteIt(author) };
  }

  async updatePullBody(pullNumber: number, body: string): Promise<void> {
    await this.#octokit.rest.pulls.update({
      ...this.#repo,
      pull_number: pullNumber,
      body,
    });
  }

  // ---- Commits through the API (GitHub signs them) ----

  /** Deletes a branch this run created (REST `DELETE /git/refs/heads/{name}`); one already gone is fine. */
  async deleteBranch(name: string): Promise<void> {
    try {
      await this.#octokit.rest.git.deleteRef({ ...this.#repo, ref: `heads/${name}` });
    } catch (error) {
      if (statusOf(error) === 422 && /does not exist/i.test(String((error as Error).message))) return;
      throw error;
    }
  }

  /** Creates branch `name` at `sha`: 'exists' when the name is taken (GitHub's 422). */
  async createBranch(name: string, sha: string): Promise<'created' | 'exists'> {
    try {
      await this.#octokit.rest.git.createRef({ ...this.#repo, ref: `refs/heads/${name}`, sha });
      return 'created';
    } catch (error) {
      // 422 also answers a sha GitHub does not have: only "Reference already exists" means the name is taken.
      if (statusOf(error) === 422 && /already exists/i.test(String((error as Error).message)))
        return 'exists';
      throw error;
    }
  }

  /**
   * Appends one commit to `branch` with GraphQL's createCommitOnBranch: GitHub authors it as the token's
   * owner and signs it. `expectedHeadOid` makes it fail, rather than overwrite, when the branch moved on.
   */
  async createCommitOnBranch(commit: ApiCommit): Promise<{ oid: string; url: string }> {
    const result = await this.#octokit.graphql<{
      createCommitOnBranch: { commit: { oid: string; url: string } };
    }>(CREATE_COMMIT, {
      input: {
        branch: { repositoryNameWithOwner: `${this.owner}/${this.repo}`, branchName: commit.branch },
        message: { headline: commit.headline, ...(commit.body ? { body: commit.body } : {}) },
        fileChanges: { additions: commit.additions, deletions: commit.deletions },
        expectedHeadOid: commit.expectedHeadOid,
      },
    });
    return result.createCommitOnBranch.commit;
  }
}

const CREATE_COMMIT = `mutation ($input: CreateCommitOnBranchInput!) {
  createCommitOnBranch(input: $input) { commit { oid url } }
}`;

export interface ApiCommit {
  branch: string;
  headline: string;
  body?: string;
  /** Contents as RFC 4648 base64. */
  additions: Array<{ path: string; contents: string }>;
  deletions: Array<{ path: string }>;
  expectedHeadOid: string;
}

/** Every status a run that has not completed can show (`waiting`, `pending` and `requested` are GitHub's own). */
const UNFINISHED = ['queued', 'in_progress', 'waiting', 'pending', 'requested'] as const;

/** A workflow run as the queue reads it. */
export interface WorkflowRunInfo {
  id: number;
  workflowId: number;
  /** The run's name as shown (`display_title`): the workflow's `run-name`, which names the thread. */
  title: string;
  status: string;
  /** When its latest attempt started (a re-run starts again), else when it was made. */
  startedAt: string;
  htmlUrl: string;
}

function runInfo(run: {
  id: number;
  workflow_id: number;
  display_title: string;
  status: string | null;
  run_started_at?: string;
  created_at: string;
  html_url: string;
}): WorkflowRunInfo {
  return {
    id: run.id,
    workflowId: run.workflow_id,
    title: run.display_title,
    status: run.status ?? 'unknown',
    startedAt: run.run_started_at ?? run.created_at,
    htmlUrl: run.html_url,
  };
}

export interface ChangedFile {
  path: string;
  status: string;
  additions: number;
  deletions: number;
}

export interface OpenPull {
  number: number;
  htmlUrl: string;
  /** It was open already (an earlier run's, or a person's), rather than opened now. */
  reused: boolean;
  /** Opened by this action (now or by an earlier run), so its description may be replaced. */
  ours: boolean;
}

/** The fields an issue comment and a review comment share, as the action reads them. */
function commentOf(comment: {
  id: number;
  body?: string | null;
  body_html?: string;
  user?: { login: string; type: string } | null;
  author_association: string;
  created_at: string;
  updated_at: string;
  html_url: string;
}): IssueComment {
  return {
    id: comment.id,
    body: comment.body ?? '',
    ...(comment.body_html ? { bodyHtml: comment.body_html } : {}),
    user: comment.user?.login ?? 'ghost',
    userType: comment.user?.type ?? 'User',
    association: comment.author_association,
    createdAt: comment.created_at,
    updatedAt: comment.updated_at,
    htmlUrl: comment.html_url,
  };
}

/** Where a review comment sits: its line, or its original line when the diff has moved on. */
function lineOf(comment: {
  line?: number | null;
  original_line?: number | null;
  start_line?: number | null;
}): Pick<ReviewComment, 'line' | 'startLine' | 'outdated'> {
  const line = comment.line ?? comment.original_line ?? undefined;
  return {
    ...(line === undefined ? {} : { line }),
    ...(comment.start_line ? { startLine: comment.start_line } : {}),
    ...(comment.line == null && line !== undefined ? { outdated: true } : {}),
  };
}

/** A comment as one of our writes left it. */
export interface WrittenComment {
  id: number;
  body: string;
  etag?: string;
}

function written(body: string | null | undefined, etag: string | undefined): { body: string; etag?: string } {
  return { body: body ?? '', ...(etag ? { etag } : {}) };
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/** GitHub answered a read with a redirect (a transferred issue: 301 to its new place), not followed. */
export class Redirected extends Error {
  override name = 'Redirected';
  constructor(
    route: string,
    readonly status: number,
    /** Where GitHub sent the request: for a transferred issue, `…/repositories/<id>/issues/<number>`. */
    readonly location: string,
  ) {
    super(`GitHub answered ${route} with a redirect (${status}) to ${location || 'nowhere'}`);
  }
}

export function statusOf(error: unknown): number | undefined {
  const status = (error as { status?: unknown } | null)?.status;
  return typeof status === 'number' ? status : undefined;
}
