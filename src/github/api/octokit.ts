// Where every GitHub call goes through: Octokit with the retry and throttling plugins, writes paced, every
// parameter redacted. The one module that imports @actions/github and @octokit/*.
import { getOctokit } from '@actions/github';
import { retry } from '@octokit/plugin-retry';
import { throttling } from '@octokit/plugin-throttling';
import { redactor } from '../../text/redact.js';
import { WritePacer } from '../write-pacer.js';

export type Octokit = ReturnType<typeof getOctokit>;

export interface ApiOptions {
  token: string;
  owner: string;
  repo: string;
  baseUrl: string;
  warn?: (message: string) => void;
  /** A write already made without this client (the first 👀): the pacer counts it and waits for it. */
  writeBefore?: Promise<unknown>;
}

/**
 * Stands in for one of plugin-throttling's Bottleneck groups (`group.key(id).schedule(options, job, …args)`)
 * and runs the job at once (typed `never` where passed: only `key` and `schedule` are used). The plugin
 * still waits out and retries the limits GitHub answers with.
 */
const PASS_THROUGH = {
  key: () => ({
    schedule: <A extends unknown[], R>(_options: unknown, job: (...args: A) => R, ...args: A): R =>
      job(...args),
  }),
};

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
export function createOctokit({ token, baseUrl, warn = () => {}, writeBefore }: ApiOptions): Octokit {
  const octokit = getOctokit(
    token,
    {
      baseUrl,
      // plugin-retry's list, plus 409: a conflict (a run that already finished) does not pass by waiting.
      retry: { doNotRetry: [400, 401, 403, 404, 409, 410, 422, 451] },
      throttle: {
        onRateLimit: limitHandler('rate limit', warn),
        onSecondaryRateLimit: limitHandler('secondary rate limit', warn),
        // The pacer below is the one rule for writes: the plugin's own queues would hold every write 1 s
        // after the last (3 s after a comment), so they let each one straight through.
        write: PASS_THROUGH as never,
        notifications: PASS_THROUGH as never,
      },
    },
    retry,
    throttling,
  );
  // Outermost wrap: every parameter is redacted before anything else sees it, and a write starts only once
  // the previous one (with its retries and queueing) is done.
  const pacer = new WritePacer(writeBefore ? { before: writeBefore } : {});
  octokit.hook.wrap('request', (request, options) => {
    redactParams(options as unknown as Record<string, unknown>);
    if (options.method === 'GET') return request(options);
    const beside = (options.request as { [BESIDE]?: boolean } | undefined)?.[BESIDE] === true;
    return pacer.run(async () => await request(options), { beside });
  });
  return octokit;
}

/** The HTTP status a failed request answered with (Octokit's RequestError), if it got one. */
export function statusOf(error: unknown): number | undefined {
  const status = (error as { status?: unknown } | null)?.status;
  return typeof status === 'number' ? status : undefined;
}

/** The repository every call of a part of the API (api/*.ts) is about, and the one client it goes through. */
export interface RepoScope {
  octokit: Octokit;
  owner: string;
  repo: string;
}

const BESIDE = 'todoAgentBeside';
/** A write's request option that lets it go beside the write in flight (write-pacer.ts says when). */
export const BESIDE_OTHER_WRITES = { request: { [BESIDE]: true } } as const;

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
