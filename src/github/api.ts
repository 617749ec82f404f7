// The one module that talks to the GitHub REST API: Octokit with the retry and throttling plugins.
import { getOctokit } from '@actions/github';
import { retry } from '@octokit/plugin-retry';
import { throttling } from '@octokit/plugin-throttling';
import { redactor } from '../redact.js';
import { WritePacer } from './write-pacer.js';

export type Permission = 'admin' | 'write' | 'read' | 'none';
export type Reaction = 'eyes' | 'rocket' | 'confused' | '+1' | '-1' | 'laugh' | 'heart' | 'hooray';

export interface IssueComment {
  id: number;
  body: string;
  user: string;
  userType: string;
  /** GitHub's author_association: OWNER, MEMBER, COLLABORATOR, CONTRIBUTOR, NONE, … */
  association: string;
  createdAt: string;
  updatedAt: string;
  htmlUrl: string;
}

/** Who writes when the workflow's own GITHUB_TOKEN is used. */
export const WORKFLOW_BOT = 'github-actions[bot]';

export interface ApiOptions {
  token: string;
  owner: string;
  repo: string;
  baseUrl: string;
  warn?: (message: string) => void;
}

const LIMIT_RETRIES = 3;
/** A rate limit that asks for a longer wait than this is not waited out: a comment is not worth the job. */
const MAX_LIMIT_WAIT_SECONDS = 120;

/** The throttling plugin's handler for one kind of limit: wait it out (a few times, never for long), warning either way. */
function limitHandler(kind: string, warn: (message: string) => void) {
  return (
    retryAfter: number,
    options: { method: string; url: string },
    _octokit: unknown,
    count: number,
  ): boolean => {
    const retry = count < LIMIT_RETRIES && retryAfter <= MAX_LIMIT_WAIT_SECONDS;
    const next = retry ? `retrying in ${retryAfter} s` : `giving up (retry after ${retryAfter} s)`;
    warn(`GitHub ${kind} on ${options.method} ${options.url}; ${next}`);
    return retry;
  };
}

/**
 * The Octokit every GitHub call goes through: retry and throttling plugins, writes paced one at a time, and
 * every request's parameters redacted on their way out. Redaction wraps the request itself, under every
 * method, so that no request, a new one included, can carry a secret to GitHub.
 */
export function createOctokit({
  token,
  baseUrl,
  warn = () => {},
}: ApiOptions): ReturnType<typeof getOctokit> {
  const octokit = getOctokit(
    token,
    {
      baseUrl,
      throttle: {
        onRateLimit: limitHandler('rate limit', warn),
        onSecondaryRateLimit: limitHandler('secondary rate limit', warn),
      },
    },
    retry,
    throttling,
  );
  // Outermost wrap: every parameter is redacted before anything else sees it, and a write starts only once
  // the previous one (with its retries and queueing) is done.
  const pacer = new WritePacer();
  octokit.hook.wrap('request', (request, options) => {
    redactParams(options as unknown as Record<string, unknown>);
    return options.method === 'GET' ? request(options) : pacer.run(async () => await request(options));
  });
  return octokit;
}

/** The request options that are not parameters: where and how to send, never what. */
const TRANSPORT_KEYS = new Set(['method', 'baseUrl', 'url', 'headers', 'mediaType', 'request']);

/**
 * Redacts every parameter (path, query and body alike) string by string, in place: a hook cannot hand the
 * next one a new options object (before-after-hook binds them all to the first), only change that one.
 */
function redactParams(options: Record<string, unknown>): void {
  for (const key of Object.keys(options)) {
    if (!TRANSPORT_KEYS.has(key)) options[key] = redactStrings(options[key]);
  }
}

function redactStrings(value: unknown): unknown {
  if (typeof value === 'string') return redactor.redact(value);
  if (Array.isArray(value)) return value.map(redactStrings);
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, redactStrings(inner)]));
  }
  return value;
}

export class GitHubApi {
  readonly #octokit: ReturnType<typeof getOctokit>;
  readonly #repo: { owner: string; repo: string };
  #self: Promise<string | undefined> | undefined;
  /** The login our own reaction came back with: who this token writes as, whatever kind of token it is. */
  #reactedAs: string | undefined;

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

  /** The user's permission on the repository; a stranger (404) has none. */
  async permission(username: string): Promise<Permission> {
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

  async defaultBranch(): Promise<string> {
    const { data } = await this.#octokit.rest.repos.get(this.#repo);
    return data.default_branch;
  }

  async react(commentId: number, content: Reaction): Promise<void> {
    const { data } = await this.#octokit.rest.reactions.createForIssueComment({
      ...this.#repo,
      comment_id: commentId,
      content,
    });
    this.#reactedAs ??= data.user?.login;
  }

  /**
   * The login the token writes as, asked once: a personal access token's user. The workflow's token and an
   * app's token may not ask (403), and write as a bot anyway, so the answer is then undefined.
   */
  selfLogin(): Promise<string | undefined> {
    this.#self ??= this.#octokit.rest.users.getAuthenticated().then(
      ({ data }) => data.login,
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

  /** The issue's comments, oldest first. */
  async comments(issueNumber: number): Promise<IssueComment[]> {
    const all = await this.#octokit.paginate(this.#octokit.rest.issues.listComments, {
      ...this.#repo,
      issue_number: issueNumber,
      per_page: 100,
    });
    return all.map((comment) => ({
      id: comment.id,
      body: comment.body ?? '',
      user: comment.user?.login ?? 'ghost',
      userType: comment.user?.type ?? 'User',
      association: comment.author_association,
      createdAt: comment.created_at,
      updatedAt: comment.updated_at,
      htmlUrl: comment.html_url,
    }));
  }

  async createComment(issueNumber: number, body: string): Promise<{ id: number; htmlUrl: string }> {
    const { data } = await this.#octokit.rest.issues.createComment({
      ...this.#repo,
      issue_number: issueNumber,
      body,
    });
    return { id: data.id, htmlUrl: data.html_url };
  }

  async updateComment(commentId: number, body: string): Promise<void> {
    await this.#octokit.rest.issues.updateComment({
      ...this.#repo,
      comment_id: commentId,
      body,
    });
  }

  /** The head branch of a pull request (for a run triggered on a PR). */
  async pullHead(pullNumber: number): Promise<{ ref: string; base: string; sameRepo: boolean }> {
    const { data } = await this.#octokit.rest.pulls.get({ ...this.#repo, pull_number: pullNumber });
    return {
      ref: data.head.ref,
      base: data.base.ref,
      sameRepo: data.head.repo?.full_name === `${this.owner}/${this.repo}`,
    };
  }

  /**
   * Opens a pull request, or returns the open one that already exists for the branch (also when another
   * run opened it between our look and our create). A reused PR gets the new body only when this action
   * (an earlier run) opened it: a description a person wrote is left alone.
   */
  async openPull(request: {
    head: string;
    base: string;
    title: string;
    body: string;
  }): Promise<{ number: number; htmlUrl: string; reused: boolean }> {
    const pull = request;
    const existing = await this.#openPullFor(pull.head);
    if (existing) return await this.#reuse(existing, pull.body);
    try {
      const { data } = await this.#octokit.rest.pulls.create({ ...this.#repo, ...pull });
      return { number: data.number, htmlUrl: data.html_url, reused: false };
    } catch (error) {
      const raced = statusOf(error) === 422 ? await this.#openPullFor(pull.head) : undefined;
      if (!raced) throw error;
      return await this.#reuse(raced, pull.body);
    }
  }

  async #openPullFor(head: string): Promise<OpenPull | undefined> {
    const { data } = await this.#octokit.rest.pulls.list({
      ...this.#repo,
      head: `${this.owner}:${head}`,
      state: 'open',
    });
    const found = data[0];
    if (!found) return undefined;
    const author = { user: found.user?.login ?? 'ghost', userType: found.user?.type ?? 'User' };
    return { number: found.number, htmlUrl: found.html_url, ours: await this.wroteIt(author) };
  }

  async #reuse(pull: OpenPull, body: string): Promise<{ number: number; htmlUrl: string; reused: true }> {
    if (pull.ours) await this.#octokit.rest.pulls.update({ ...this.#repo, pull_number: pull.number, body });
    return { number: pull.number, htmlUrl: pull.htmlUrl, reused: true };
  }
}

interface OpenPull {
  number: number;
  htmlUrl: string;
  /** Opened by this action (an earlier run), so its description may be replaced. */
  ours: boolean;
}

export function statusOf(error: unknown): number | undefined {
  const status = (error as { status?: unknown } | null)?.status;
  return typeof status === 'number' ? status : undefined;
}
