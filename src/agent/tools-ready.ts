// A run may be handed its sandbox while it is still being built (`sandboxReady`: the action builds it, and
// makes the rest of what a tool needs ready, beside the first model request). The loop asks the model at once
// and waits for it here, once, before its first tool call or check; a failure to build it fails the run then.
import type { AgentOptions } from './options.js';
import type { ToolContext } from './tools/types.js';

/** What the loop awaits before any tool runs: at once when the sandbox was given built (or there is none). */
export function toolsReady(options: AgentOptions, context: ToolContext): () => Promise<void> {
  let ready: Promise<void> | undefined;
  return () =>
    (ready ??= (async () => {
      const sandbox = await options.sandboxReady;
      if (sandbox) context.sandbox = sandbox;
    })());
}

/** The sandbox's network, now or once the sandbox is built: the gate's refusals are watched on it. */
export function toolNetwork(options: AgentOptions) {
  return options.sandbox?.network ?? options.sandboxReady?.then((sandbox) => sandbox?.network);
}
