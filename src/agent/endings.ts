// Why a run ends: each ending with the one sentence its result carries.
import { classifyModelError } from '../model/client.js';
import type { ContentBlockParam } from '../model/messages.js';
import type { AgentStatus, VerifyReport } from './events.js';
import { blockers, type TodoItem } from './todo/todos.js';

export interface Ending {
  end: AgentStatus;
  reason: string;
}

/** What a turn sends back to the model, or the end of the run. */
export type Reply = { content: ContentBlockParam[] } | Ending;

export const CANCELLED: Ending = { end: 'cancelled', reason: 'the run was cancelled' };

/** A request the model client gave up on (its retries spent, or cancelled). */
export function modelErrorEnding(error: unknown, service: string): Ending {
  const failure = classifyModelError(error, service);
  if (failure.kind === 'cancelled') return { end: 'cancelled', reason: failure.message };
  if (failure.kind === 'context_window') return { end: 'incomplete', reason: failure.message };
  return { end: 'failed', reason: failure.message };
}

/** Stop reasons that end the run: the model will not, or cannot, go on. */
export function stopReasonEnding(stopReason: 'refusal' | 'model_context_window_exceeded'): Ending {
  if (stopReason === 'refusal')
    return { end: 'failed', reason: 'the model declined to continue with this task (stop reason: refusal)' };
  return { end: 'incomplete', reason: "the conversation filled the model's context window" };
}

/** The estimated cost passed max_cost_usd. */
export function costEnding(costUsd: number, limit: number | undefined): Ending | undefined {
  if (limit === undefined || costUsd <= limit) return undefined;
  return {
    end: 'incomplete',
    reason: `its estimated cost ($${costUsd.toFixed(2)}) passed the limit of $${limit.toFixed(2)} (max_cost_usd)`,
  };
}

/** A verify round that passed, was cancelled, or failed for the last time; undefined: another round. */
export function verifyEnding(report: VerifyReport, lastRound: boolean): Ending | undefined {
  const command = `verify_command \`${report.command}\``;
  if (report.passed)
    return { end: 'completed', reason: `every todo item is completed and ${command} passed` };
  if (report.aborted) return CANCELLED;
  if (!lastRound) return undefined;
  return {
    end: 'incomplete',
    reason: `${command} still fails after ${report.round} round${report.round === 1 ? '' : 's'}`,
  };
}

/** The model stopped with items it cannot do, each named by a "Blocked:" item: the run ends here, saying why. */
export function blockedEnding(items: readonly TodoItem[]): Ending | undefined {
  const found = blockers(items);
  if (found.length === 0) return undefined;
  return { end: 'incomplete', reason: `the model stopped at a blocker: ${found.join('; ')}` };
}

/** max_turns reached; `check`: the completion check, when every item was completed by then. */
export function turnLimitEnding(maxTurns: number, check?: Reply): Ending {
  const limit = `it reached the limit of ${maxTurns} turns (max_turns)`;
  if (!check || !('end' in check)) return { end: 'incomplete', reason: limit };
  if (check.end === 'incomplete') return { end: 'incomplete', reason: `${limit}, and ${check.reason}` };
  return check;
}
