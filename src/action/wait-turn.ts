// A request's turn on its thread: wait, on the Actions API, for the runs ahead of it (github/run-queue.ts),
// saying on the thread what it waits for. Nothing here cancels anything.
import { answer } from '../github/answer.js';
import type { GitHubApi } from '../github/api/github-api.js';
import type { WorkflowRunInfo } from '../github/api/runs.js';
import { waitForTurn } from '../github/run-queue.js';
import type { TriggerSource } from '../github/request/trigger.js';
import type { RunRecord } from '../record/run-record.js';
import type { Settings } from '../settings/settings.js';
import { errorSentence } from '../text/error-sentence.js';
import { statusOf } from '../github/api/octokit.js';
import { log } from '../runner/output.js';

export interface TurnRequest {
  api: GitHubApi;
  trigger: TriggerSource;
  settings: Settings;
  signal: AbortSignal;
  record?: RunRecord | undefined;
  /** The queue's first look, if it was sent beside the gate (`lookAhead`). */
  queue?: Promise<WorkflowRunInfo[]> | undefined;
}

/**
 * Sends the queue's first look (the repository's unfinished runs) at once, so that it costs no round trip of
 * its own after the gate; undefined when this is not a workflow run. A failure waits for `waitTurn`.
 */
export function lookAhead(api: GitHubApi, settings: Settings): Promise<WorkflowRunInfo[]> | undefined {
  if (queueId(settings) === undefined) return undefined;
  const look = api.runs.unfinishedRuns();
  look.catch(() => undefined);
  return look;
}

function queueId(settings: Settings): number | undefined {
  const runId = Number(settings.runId);
  return Number.isInteger(runId) && runId > 0 ? runId : undefined;
}

/** Resolves once this run may start ('go'), or 'cancelled' when it was stopped while it waited. */
export async function waitTurn({
  api,
  trigger,
  settings,
  signal,
  record,
  queue,
}: TurnRequest): Promise<'go' | 'cancelled'> {
  const runId = queueId(settings);
  if (runId === undefined) return 'go'; // not a workflow run: nothing to queue behind
  const where = trigger.isPullRequest ? 'pull request' : 'issue';
  try {
    const outcome = await waitForTurn({
      api: api.runs,
      runId,
      signal,
      ...(queue ? { first: queue } : {}),
      onWait: async (ahead) => {
        const text = waitingText(ahead, where);
        log.info(text);
        record?.note(text);
        await answer(api, trigger, text);
      },
    });
    if (outcome.turn === 'unknown') log.info(`Not queued: ${outcome.why}; the run starts at once.`);
    if (outcome.turn !== 'cancelled') return 'go';
    await answer(
      api,
      trigger,
      `⏹ This request was cancelled while it waited its turn, so it did not run.`,
    ).catch(() => log.warning('could not say that the waiting request was cancelled'));
    return 'cancelled';
  } catch (error) {
    // The queue is a courtesy of the Actions API: without it (no `actions: read`), the run goes at once.
    const why =
      statusOf(error) === 403 ? 'the token may not read workflow runs (actions: read)' : errorSentence(error);
    log.warning(`could not look for runs ahead on this ${where} (${why}); the run starts at once`);
    return 'go';
  }
}

/** What a waiting request says: the runs it waits for, linked, oldest first. */
export function waitingText(ahead: readonly WorkflowRunInfo[], where: string): string {
  const links = ahead.map((run) => `[run ${run.id}](${run.htmlUrl})`);
  const count = ahead.length === 1 ? '1 request ahead' : `${ahead.length} requests ahead`;
  return `⏳ todo-agent will start on this request once ${links.join(', ')} on this ${where} ${ahead.length === 1 ? 'finishes' : 'finish'} (${count}).`;
}
