// The per-thread queue: requests on one issue or pull request run one at a time, in the order their
// workflow runs were made, and none is dropped. GitHub's concurrency group would keep one pending run and
// cancel the older one silently (and does not promise the order even with `queue: max`), so every job starts
// at once and the action itself waits on the Actions API for the runs ahead of it on the same thread.
import type { WorkflowRunInfo } from './api/runs.js';

/**
 * How often a waiting run looks at the run ahead: soon at first, then less often, so that a long wait costs
 * few requests (about 100 in half an hour) against the token's 1,000 an hour.
 */
export const QUEUE_POLL = { firstMs: 2_000, growth: 1.5, maxMs: 20_000 } as const;

/** What the queue needs of the API. */
export interface QueueApi {
  /** Every run of the repository that is not completed. */
  unfinishedRuns(): Promise<WorkflowRunInfo[]>;
  /** One run's status now; `gone` when GitHub has no such run. */
  runStatus(runId: number): Promise<string>;
}

/**
 * The runs ahead of `ownId` on its thread, oldest first: the same workflow and the same run name (the
 * workflow's `run-name` names the thread, so every run of one thread has the same `display_title`), not
 * completed, started before it. Undefined when the list does not hold `ownId` (no queue to stand in).
 */
export function runsAhead(runs: readonly WorkflowRunInfo[], ownId: number): WorkflowRunInfo[] | undefined {
  const own = runs.find((run) => run.id === ownId);
  if (!own) return undefined;
  return runs
    .filter(
      (run) =>
        run.id !== own.id &&
        run.workflowId === own.workflowId &&
        run.title === own.title &&
        run.status !== 'completed' &&
        startsBefore(run, own),
    )
    .sort((a, b) => (startsBefore(a, b) ? -1 : 1));
}

function startsBefore(a: WorkflowRunInfo, b: WorkflowRunInfo): boolean {
  const [ta, tb] = [Date.parse(a.startedAt), Date.parse(b.startedAt)];
  return ta !== tb ? ta < tb : a.id < b.id;
}

export interface WaitRequest {
  api: QueueApi;
  runId: number;
  signal: AbortSignal;
  /** Told once, before the wait, which runs are ahead (to say so on the thread). */
  onWait: (ahead: readonly WorkflowRunInfo[]) => Promise<void>;
  /** The first look at the unfinished runs, if it was already sent; else it is sent now. */
  first?: Promise<WorkflowRunInfo[]>;
  /** The first pause between looks (tests make it short); later ones grow to QUEUE_POLL.maxMs. */
  pollMs?: number;
}

export type WaitOutcome =
  | { turn: 'now'; waitedFor: number }
  | { turn: 'unknown'; why: string }
  | { turn: 'cancelled'; waitedFor: number };

/** Waits until no run is ahead on this thread; returns at once when none is. */
export async function waitForTurn(request: WaitRequest): Promise<WaitOutcome> {
  const ahead = runsAhead(await (request.first ?? request.api.unfinishedRuns()), request.runId);
  if (!ahead)
    return { turn: 'unknown', why: `run ${request.runId} is not among the repository's unfinished runs` };
  if (ahead.length === 0) return { turn: 'now', waitedFor: 0 };
  await request.onWait(ahead);
  let pauseMs = request.pollMs ?? QUEUE_POLL.firstMs;
  for (const run of ahead) {
    for (;;) {
      if (request.signal.aborted) return { turn: 'cancelled', waitedFor: ahead.length };
      const status = await request.api.runStatus(run.id);
      if (status === 'gone' || status === 'completed') break;
      await pause(pauseMs, request.signal);
      pauseMs = Math.min(pauseMs * QUEUE_POLL.growth, QUEUE_POLL.maxMs);
    }
  }
  return { turn: 'now', waitedFor: ahead.length };
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
  });
}
