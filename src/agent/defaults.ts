// The agent's defaults that settings read: a module of their own, so that reading the settings does not load
// the loop and, through it, the model's SDK (the action's first GitHub write goes out before either loads).

/** The most one bash call (or the verify command) may last when no bash_timeout is given. */
export const DEFAULT_BASH_TIMEOUT_SECONDS = 600;
/** The most model turns in one run when no max_turns is given (the action's documented default). */
export const DEFAULT_MAX_TURNS = 150;
