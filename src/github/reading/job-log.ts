// A job's log as the model reads it: the job and its steps (failed ones first), the error lines, then the
// log's last lines, without the timestamps GitHub puts on every line.
import type { ReadRequest } from '../api/reads.js';
import { fetchFollowing } from '../thread/attachments.js';

/** The log is read to its end, but only this much of its tail is kept in memory. */
export const LOG_TAIL_BYTES = 1024 * 1024;
export const LOG_TAIL_LINES = 200;
const MAX_ERROR_LINES = 20;
const MAX_CHARS = 30_000;
const TIMESTAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z ?/;

/**
 * A log that sends nothing for this long is given up (GitHub, then its storage host, stalled), as a thread's
 * picture is; one still coming after LOG_TIMEOUT_MS is given up too. Nothing else bounds the github tool.
 */
export const LOG_STALL_MS = 30_000;
export const LOG_TIMEOUT_MS = 120_000;

export interface JobStep {
  number: number;
  name: string;
  status: string;
  conclusion: string | null;
}

export interface JobSummary {
  id: number;
  name: string;
  workflowName: string | null;
  status: string;
  conclusion: string | null;
  htmlUrl: string | null;
  steps: readonly JobStep[];
}

const failed = (conclusion: string | null) =>
  conclusion === 'failure' || conclusion === 'cancelled' || conclusion === 'timed_out';

export function stepLines(steps: readonly JobStep[]): string[] {
  const ordered = [
    ...steps.filter((s) => failed(s.conclusion)),
    ...steps.filter((s) => !failed(s.conclusion)),
  ];
  return ordered.map(
    (s) =>
      `${failed(s.conclusion) ? '✗' : s.conclusion === 'success' ? '✓' : '·'} step ${s.number}: ${s.name} (${s.conclusion ?? s.status})`,
  );
}

/** The last bytes of a stream and how many there were in all: a huge log costs its tail, not its size. */
export async function readTail(
  body: ReadableStream<Uint8Array> | null,
  keep = LOG_TAIL_BYTES,
  onChunk: () => void = () => {},
): Promise<{ tail: Uint8Array; total: number }> {
  if (!body) return { tail: new Uint8Array(), total: 0 };
  let tail = new Uint8Array();
  let total = 0;
  for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
    onChunk();
    total += chunk.length;
    const joined = new Uint8Array(Math.min(tail.length + chunk.length, keep));
    const fromChunk = Math.min(chunk.length, keep);
    const fromTail = joined.length - fromChunk;
    joined.set(tail.subarray(tail.length - fromTail), 0);
    joined.set(chunk.subarray(chunk.length - fromChunk), fromTail);
    tail = joined;
  }
  return { tail, total };
}

export function describeJobLog(job: JobSummary, log: { tail: Uint8Array; total: number }): string {
  let lines = new TextDecoder().decode(log.tail).split(/\r?\n/);
  // A cut tail starts mid-line: that line goes.
  if (log.total > log.tail.length) lines = lines.slice(1);
  lines = lines.map((line) => line.replace(TIMESTAMP, ''));
  while (lines.at(-1) === '') lines.pop();
  const errors = lines.filter((line) => line.startsWith('##[error]')).slice(-MAX_ERROR_LINES);
  const shown = lines.slice(-LOG_TAIL_LINES);
  const header = [
    `job ${job.id} "${job.name}"${job.workflowName ? ` in workflow "${job.workflowName}"` : ''}: ${job.status}${job.conclusion ? `, ${job.conclusion}` : ''}`,
    ...(job.htmlUrl ? [job.htmlUrl] : []),
    ...stepLines(job.steps),
  ];
  const parts = [header.join('\n')];
  if (errors.length > 0) parts.push(`errors:\n${errors.join('\n')}`);
  const whole = log.total <= log.tail.length && shown.length === lines.length;
  parts.push(
    `${whole ? `log (${shown.length} lines)` : `last ${shown.length} lines of the log (${log.total.toLocaleString('en-US')} bytes in all)`}:\n${shown.join('\n')}`,
  );
  const text = parts.join('\n\n');
  return text.length <= MAX_CHARS ? text : `[… cut]\n${text.slice(text.length - MAX_CHARS)}`;
}

/**
 * The answer for job_log: the job with its steps (GitHub's jobs API), then its log, which GitHub gives as a
 * redirect to a short-lived signed URL on its storage host. The redirect is not followed with the token: the
 * log is fetched from the signed URL with no credential at all (and any further redirect followed by hand,
 * never from https down to http), only its tail is kept, and a stall or a slow trickle gives up.
 */
export async function jobLogAnswer(
  read: ReadRequest,
  repo: { owner: string; repo: string },
  jobId: number,
  signal?: AbortSignal,
  { stallMs = LOG_STALL_MS, timeoutMs = LOG_TIMEOUT_MS }: { stallMs?: number; timeoutMs?: number } = {},
): Promise<string> {
  const { data: job } = await read('GET /repos/{owner}/{repo}/actions/jobs/{job_id}', {
    ...repo,
    job_id: jobId,
  });
  const summary: JobSummary = {
    id: Number(job.id),
    name: job.name,
    workflowName: job.workflow_name,
    status: job.status,
    conclusion: job.conclusion,
    htmlUrl: job.html_url,
    steps: (job.steps ?? []).map((s) => ({
      number: s.number,
      name: s.name,
      status: s.status,
      conclusion: s.conclusion,
    })),
  };
  const watch = new Watchdog(stallMs, timeoutMs, signal);
  try {
    const redirect = await read('GET /repos/{owner}/{repo}/actions/jobs/{job_id}/logs', {
      ...repo,
      job_id: jobId,
      request: { redirect: 'manual', signal: watch.signal },
    });
    const location = redirect.headers.location;
    if (typeof location !== 'string' || location === '')
      throw new Error(`GitHub gave no log for job ${jobId} (HTTP ${redirect.status})`);
    watch.touch();
    const response = await fetchFollowing(location, {
      signal: watch.signal,
      refused: plainDownload(new URL(location).protocol),
    });
    if ('failed' in response)
      throw new Error(`the log of job ${jobId} could not be downloaded (${response.failed})`);
    if (!response.ok) {
      await response.body?.cancel();
      throw new Error(`the log of job ${jobId} could not be downloaded (HTTP ${response.status})`);
    }
    return describeJobLog(summary, await readTail(response.body, LOG_TAIL_BYTES, () => watch.touch()));
  } catch (error) {
    const gaveUp = watch.reason();
    if (gaveUp) throw new Error(`the log of job ${jobId} ${gaveUp}, so it was given up`, { cause: error });
    throw error;
  } finally {
    watch.stop();
  }
}

/** The log's way down: http(s) without user or password, and from an https address only to https ones. */
function plainDownload(firstProtocol: string) {
  return (url: string): string | undefined => {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      return 'not a URL';
    }
    if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return `not http(s): ${parsed.protocol}`;
    if (parsed.username || parsed.password) return 'a URL that carries a user name or password';
    if (firstProtocol === 'https:' && parsed.protocol !== 'https:') return 'redirected from https to http';
    return undefined;
  };
}

/** Aborts when nothing happened for `stallMs` (see `touch`), when `timeoutMs` passed, or with `outer`. */
class Watchdog {
  readonly #controller = new AbortController();
  readonly signal: AbortSignal;
  readonly #stallMs: number;
  #why: string | undefined;
  #stall: NodeJS.Timeout;
  readonly #total: NodeJS.Timeout;

  constructor(stallMs: number, timeoutMs: number, outer?: AbortSignal) {
    this.#stallMs = stallMs;
    this.signal = outer ? AbortSignal.any([outer, this.#controller.signal]) : this.#controller.signal;
    this.#stall = setTimeout(() => this.#abort(`sent nothing for ${seconds(stallMs)}`), stallMs);
    this.#total = setTimeout(() => this.#abort(`was still coming after ${seconds(timeoutMs)}`), timeoutMs);
  }

  touch(): void {
    clearTimeout(this.#stall);
    this.#stall = setTimeout(() => this.#abort(`sent nothing for ${seconds(this.#stallMs)}`), this.#stallMs);
  }

  /** Why the watchdog gave up, if it did. */
  reason(): string | undefined {
    return this.#why;
  }

  stop(): void {
    clearTimeout(this.#stall);
    clearTimeout(this.#total);
  }

  #abort(why: string): void {
    this.#why ??= why;
    this.stop();
    // With no reason of its own, the abort is an AbortError: Octokit passes it on rather than retry it.
    this.#controller.abort();
  }
}

const seconds = (ms: number) => (ms >= 1000 ? `${ms / 1000} s` : `${ms} ms`);
