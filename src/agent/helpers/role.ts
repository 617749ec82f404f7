// What a helper is to its own run, and the limits the task tool keeps: the types the loop and the options
// share, apart from the machinery that starts helpers (helpers.ts).
import type { HelperKind } from '../events.js';
import type { AgentOptions } from '../options.js';

export type { HelperKind };

/** max_parallel_tasks and task_max_turns. */
export interface TaskLimits {
  /** Explore helpers side by side at most; 0 turns the task tool off. */
  maxParallel: number;
  /** Model turns of one helper at most. */
  maxTurns: number;
}

/** A helper's own run: who it is, and what the rest of the run has cost so far (for max_cost_usd). */
export interface HelperRole {
  session: string;
  kind: HelperKind;
  /** What the run that started it and its other helpers have cost so far, in USD. */
  costBeside: () => number;
}

/**
 * The tools a run has by its role: a plan run and an explore helper only read (an explore helper's bash runs
 * in a read-only sandbox, and without a sandbox it has no bash); a run that may start helpers has the task
 * tool, which a helper never has.
 */
export function toolShape(options: AgentOptions): { readOnly: boolean; bash: boolean } {
  const explore = options.helper?.kind === 'explore';
  return {
    readOnly: (options.planOnly ?? false) || explore,
    bash: !explore || options.sandbox !== undefined,
  };
}
