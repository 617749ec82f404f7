// A run may be handed its sandbox while it is still being built (`sandboxReady`: the action builds it, and
// makes the rest of what a tool needs ready, beside the first model request). The loop asks the model at once
// and waits for it here, once, before its first tool call or check; a failure to build it fails the run then.
// Here too: the context every tool call is given, made once from the run's options.
import { childEnv } from '../sandbox/commands/child-env.js';
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

/** The tools' context: the workspace, the per-call ceiling, the environment without the secrets, the sandbox. */
export function toolContext(options: AgentOptions, bashTimeoutSeconds: number): ToolContext {
  return {
    workspace: options.workspace,
    bashTimeoutSeconds,
    env: childEnv(process.env, options.secrets ?? []),
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.sandbox ? { sandbox: options.sandbox } : {}),
    ...(options.redaction ? { redaction: options.redaction } : {}),
    ...(options.hiddenFiles ? { hidden: options.hiddenFiles } : {}),
  };
}
