// What the settings and the work plan make of the agent's options: the model's choices, the run's facts,
// the verify gate, and the first message's view of an earlier run.
import type { ModelOptions } from '../model/client.js';
import type { Briefing, RunFacts } from '../agent/prompt.js';
import type { VerifySettings } from '../agent/verify.js';
import type { WorkPlan } from '../github/work-plan.js';
import { log } from '../runner/output.js';
import type { Settings } from '../settings/settings.js';

/** The model settings beyond the client's connection: effort, prices, and where its notices go. */
export function modelChoices(settings: Settings): Pick<ModelOptions, 'effort' | 'pricePerMtok' | 'onNotice'> {
  const { effort, price_per_mtok } = settings.inputs;
  return {
    ...(effort ? { effort } : {}),
    ...(price_per_mtok ? { pricePerMtok: price_per_mtok } : {}),
    onNotice: (message) => log.warning(message),
  };
}

/** What the model is told about this run up front, so it spends no turns finding out. */
export function runFacts({ owner, repo, inputs }: Settings, plan: WorkPlan): RunFacts {
  return {
    repository: `${owner}/${repo}`,
    baseBranch: plan.base,
    branch: plan.branch,
    date: new Date().toISOString().slice(0, 10),
    freshCheckout: true,
    ...(inputs.verify_command ? { verifyCommand: inputs.verify_command } : {}),
  };
}

export function verifyGate({ inputs }: Settings): { verify?: VerifySettings } {
  return inputs.verify_command
    ? { verify: { command: inputs.verify_command, attempts: inputs.verify_attempts } }
    : {};
}

/** The first message's view of an earlier run: its list, its task as data, a plan's approval, the edits. */
export function briefingOf(
  earlier: NonNullable<WorkPlan['earlier']>,
): Pick<Briefing, 'resumedTodos' | 'earlierTask' | 'resumeNote' | 'maintainerEdits'> {
  return {
    resumedTodos: earlier.todos,
    ...(earlier.task === undefined ? {} : { earlierTask: earlier.task }),
    ...(earlier.approved
      ? {
          resumeNote:
            'The maintainer approved this plan. Work through it: keep the item ids, and start on the first open item.',
        }
      : {}),
    ...(earlier.edits ? { maintainerEdits: earlier.edits } : {}),
  };
}
