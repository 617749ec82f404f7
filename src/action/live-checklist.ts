// Opens the run's checklist comment (github/checklist/live.ts) with what this run knows: its task, link,
// sandbox and the state a later run resumes from.
import type { Settings } from '../settings/settings.js';
import { log } from '../runner/output.js';
import { redactAndCut } from '../text/redact.js';
import type { GitHubApi } from '../github/api/github-api.js';
import { LiveChecklist } from '../github/checklist/live.js';
import { headline, type WorkPlan } from '../github/request/work-plan.js';
import { workingBranch } from '../github/request/run-kinds.js';

/** How much of the task (redacted first) the agent-state keeps for a later `continue` (GitHub caps a comment). */
const MAX_STORED_TASK = 4_000;

/**
 * Starts creating the checklist comment (planning…) before the first model call, without waiting for it;
 * later writes edit it in place.
 */
export async function openChecklist(
  {
    settings,
    issueNumber,
    api,
    sandbox,
    mcp,
  }: { settings: Settings; issueNumber: number; api: GitHubApi; sandbox?: string; mcp?: string },
  plan: WorkPlan,
): Promise<LiveChecklist> {
  const branch = workingBranch(plan);
  return new LiveChecklist({
    issues: api.issues,
    issueNumber,
    items: plan.earlier?.todos ?? [],
    initial: {
      task: headline(plan),
      runUrl: settings.runUrl,
      ...(sandbox ? { sandbox } : {}),
      ...(mcp ? { mcp } : {}),
      trigger: settings.inputs.trigger,
      resume: {
        task: redactAndCut(headline(plan), MAX_STORED_TASK),
        issue: issueNumber,
        ...(branch === undefined ? {} : { branch }),
        base: plan.base,
        runId: settings.runId,
      },
      ...(plan.notice ? { note: plan.notice } : {}),
    },
    repo: settings,
    startBranch: branch,
    warn: (message) => log.warning(message),
  });
}
