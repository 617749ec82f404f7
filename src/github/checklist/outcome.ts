// The run's end as the checklist tells it: its phase and numbers, why it stopped, where the work went, and
// what a later `continue` or `go` picks up.
import type { AgentResult } from '../../agent/events.js';
import { treeUrl, type RepoLocation } from '../urls.js';
import type { RefusedWork } from './kept-patch.js';
import type { ChecklistPhase, ChecklistState } from './render.js';

/** What became of the work, as the checklist tells it (the delivery's answer). */
export interface DeliveredWork {
  /** The branch that holds the work on the remote, if anything was pushed. */
  pushedBranch?: string;
  pr?: { number: number; url: string };
  /** A sentence for the comment when there is something to say (no changes, push failed). */
  note?: string;
  /** GitHub refused the work: the rule and what to change. */
  refusal?: Omit<RefusedWork, 'patch'>;
  /** The whole change as a patch, kept when it could not be delivered. */
  patch?: string;
}

/** How a run ended, as the step reports it: the agent's own end, or `partial` when a part was left out. */
export type RunVerdict = AgentResult['status'] | 'partial';

const PHASES: Record<AgentResult['status'], ChecklistPhase> = {
  completed: 'completed',
  incomplete: 'incomplete',
  failed: 'failed',
  cancelled: 'cancelled',
  planned: 'planned',
};

/** What the final comment says of the run: its phase and numbers, why it stopped, where the work went. */
export function outcomeOf(
  result: AgentResult,
  delivery: DeliveredWork,
  where: RepoLocation,
  verdict: RunVerdict = result.status,
): Partial<ChecklistState> {
  const pushed = delivery.pushedBranch;
  return {
    // Work that did not reach GitHub fails the step, and the heading says how (refused, or not delivered).
    phase: verdict === 'partial' ? 'partial' : PHASES[result.status],
    turn: result.turns,
    usage: result.usage,
    costUsd: result.costUsd,
    ...(result.compactions ? { compactions: result.compactions } : {}),
    ...(result.verify ? { verify: result.verify } : {}),
    note:
      [result.status === 'completed' ? undefined : result.reason, delivery.note].filter(Boolean).join(' ') ||
      undefined,
    ...(pushed ? { branch: { name: pushed, url: treeUrl(where, pushed) } } : {}),
    ...(delivery.pr ? { pr: { number: delivery.pr.number, url: delivery.pr.url } } : {}),
    ...(delivery.patch !== undefined ? { refused: { ...delivery.refusal, patch: delivery.patch } } : {}),
  };
}

/**
 * What a later `continue` or `go` picks up: the branch the work is on (pushed now, else the one the run
 * started on), and whether this was a plan.
 */
export function resumeOf(
  result: AgentResult,
  delivery: DeliveredWork,
  startBranch: string | undefined,
): Partial<ChecklistState['resume']> {
  const branch = delivery.pushedBranch ?? startBranch;
  return {
    ...(branch ? { branch } : {}),
    ...(result.status === 'planned' ? { planned: true } : {}),
  };
}
