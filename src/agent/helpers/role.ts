// What a helper is to its own run, and the limits the task tool keeps: the types the loop and the options
// share, apart from the machinery that starts helpers (helpers.ts).
import type { HelperKind } from '../events.js';

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
