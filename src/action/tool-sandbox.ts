// The tools' sandbox as the settings ask for it, or a sentence saying why none could be built.
import { credentialFiles } from '../sandbox/credential-files.js';
import { openSandbox, SandboxError, type WorkspaceAccess } from '../sandbox/setup.js';
import type { Sandbox } from '../sandbox/namespaces.js';
import { openWorkspace } from '../agent/workspace.js';
import { runnerFiles } from '../sandbox/runner-files.js';
import { isolationName, NoIsolationError, waysOut } from '../sandbox/rootless.js';
import { log } from '../runner/output.js';
import type { Settings } from '../settings/settings.js';

/**
 * The tools' sandbox, unless the workflow turned it off; a sandbox that cannot be built stops the run.
 * `read-only` (a plan run) lets no command change the workspace.
 */
export async function startSandbox(
  settings: Settings,
  workspaceAccess: WorkspaceAccess = 'read-write',
  /** More to hide from the tools (the action's own git directory). */
  hidden: readonly string[] = [],
): Promise<Sandbox | undefined> {
  if (settings.inputs.sandbox === 'off') {
    log.warning(
      `sandbox: off: the tools run without a sandbox and can read the runner and its credentials ` +
        `(isolation: ${isolationOf(undefined)}).`,
    );
    return undefined;
  }
  const started = performance.now();
  try {
    const sandbox = await openSandbox({
      workspace: await openWorkspace(settings.workspace),
      network: settings.inputs.tool_network === 'none' ? 'none' : 'host',
      // A cloud login step's credentials file sits in the workspace: bash sees an empty file there.
      hidden: [...runnerFiles(process.env), ...credentialFiles(process.env), ...hidden],
      workspaceAccess,
      // The tools' git writes a layer of its own over the workspace's `.git`: the real one stays the checkout's.
      layerGitDir: true,
      ...(process.env.RUNNER_TOOL_CACHE ? { toolCache: process.env.RUNNER_TOOL_CACHE } : {}),
      warn: log.warning,
    });
    const ms = Math.round(performance.now() - started);
    log.info(`Sandbox ready in ${ms} ms (isolation: ${isolationOf(sandbox)}).`);
    return sandbox;
  } catch (error) {
    if (!(error instanceof SandboxError)) throw error;
    const fix = error instanceof NoIsolationError ? error.fix : undefined;
    throw new Error(`the sandbox for the tools could not be built (${error.message}); ${waysOut(fix)}`, {
      cause: error,
    });
  }
}

/** Which isolation the run's tools have, as the log and the checklist say it. */
export function isolationOf(sandbox: Sandbox | undefined): string {
  return isolationName(sandbox?.config.isolation ?? 'off');
}
