// `/agent cancel`: stops the run going on this issue or pull request through the Actions API. The cancelled
// run then finishes as on any cancel: its work pushed, its comment saying "cancelled".
import type { GitHubApi } from './api/github-api.js';
import { answer as reply } from './answer.js';
import { isRunning } from './checklist/render.js';
import type { RunTrigger } from './request/trigger.js';
import { earlierRun } from './request/work-plan.js';

export type CancelOutcome = 'completed' | 'skipped' | 'failed';

/** Finds the open checklist's saved run id, asks GitHub to cancel that run, and replies on the thread. */
export async function cancelRun(
  api: GitHubApi,
  trigger: RunTrigger,
  ownRunId: string,
  runUrl: (runId: string) => string,
): Promise<{ status: CancelOutcome; reply: string }> {
  const thread = await api.issues.comments(trigger.issueNumber);
  // The newest state we wrote for this thread, whatever it is: the run it names is the one going, if any.
  const earlier = await earlierRun(
    thread,
    { runId: ownRunId, issueNumber: trigger.issueNumber, accepts: () => true },
    async (comment) => await api.access.wroteIt(comment),
  );
  const where = trigger.isPullRequest ? 'pull request' : 'issue';
  const runId = Number(earlier?.runId);
  if (!earlier?.shown || !isRunning(earlier.shown) || !Number.isInteger(runId) || runId <= 0) {
    return respond(api, trigger, 'skipped', `There is no todo-agent run going on this ${where} to cancel.`);
  }
  const link = `[the run](${runUrl(String(runId))})`;
  switch (await api.runs.cancelRun(runId)) {
    case 'cancelling':
      return respond(
        api,
        trigger,
        'completed',
        `⏹ Cancelling ${link}: it pushes its work and says so in its checklist.`,
      );
    case 'finished':
      return respond(api, trigger, 'skipped', `${link} has already finished, so there is nothing to cancel.`);
    case 'unknown':
      return respond(
        api,
        trigger,
        'skipped',
        `GitHub does not know ${link} any more, so there is nothing to cancel.`,
      );
    case 'forbidden':
      return respond(
        api,
        trigger,
        'failed',
        `todo-agent could not cancel ${link}: the workflow needs the \`actions: write\` permission to cancel runs.`,
      );
  }
}

async function respond(
  api: GitHubApi,
  trigger: RunTrigger,
  status: CancelOutcome,
  text: string,
): Promise<{ status: CancelOutcome; reply: string }> {
  await reply(api, trigger, text);
  return { status, reply: text };
}
