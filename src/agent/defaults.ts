// The agent's defaults that settings read: a module of their own, so that reading the settings does not load
// the loop and, through it, the model's SDK (the action's first GitHub write goes out before either loads).

/** The most one bash call (or the verify command) may last when no bash_timeout is given. */
export const DEFAULT_BASH_TIMEOUT_SECONDS = 600;
/** The most model turns in one run when no max_turns is given (the action's documented default). */
export const DEFAULT_MAX_TURNS = 150;
/** Explore helpers the task tool may run side by side when no max_parallel_tasks is given (0: no task tool). */
export const DEFAULT_MAX_PARALLEL_TASKS = 3;
/** The most model turns of one helper when no task_max_turns is given. */
export const DEFAULT_TASK_MAX_TURNS = 40;
