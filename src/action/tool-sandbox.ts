// The tools' sandbox as the settings ask for it, with its network gate under `tool_network: allowlist`, or a
// sentence saying why none could be built.
import { childEnv } from '../sandbox/child-env.js';
import { credentialFiles } from '../sandbox/credential-files.js';
import { openSandbox, SandboxError, type WorkspaceAccess } from '../sandbox/setup.js';
import type { Sandbox } from '../sandbox/namespaces.js';
import { openWorkspace } from '../agent/workspace.js';
import { runnerFiles } from '../sandbox/runner-files.js';
import { isolationName, NoIsolationError, waysOut } from '../sandbox/rootless.js';
import { endpointHost } from '../model/providers.js';
import { forwardedPorts, NetworkGate, type GateOptions } from '../network/gate.js';
import { ruleText } from '../network/hosts.js';
import { log } from '../runner/output.js';
import type { Settings } from '../settings/settings.js';
import { SANDBOX_NETWORKS } from '../settings/parse.js';
import { errorSentence } from '../text/error-sentence.js';

/**
 * The tools' sandbox, unless the workflow turned it off; a sandbox that cannot be built stops the run.
 * `read-only` (a plan run) lets no command change the workspace.
 */
export async function startSandbox(
  settings: Settings,
  workspaceAccess: WorkspaceAccess,
  /** More to hide from the tools (the action's own git directory). */
  hidden: readonly string[],
  /** Values kept out of the tools' environment (the job's: the registry variables it names join the list). */
  secrets: readonly string[],
  /** What the toolchains are asked with, once the run's secrets and the trusted snapshot are known. */
  toolchains: GateOptions['toolchains'],
  /** GitHub's package hosts, asked of `GET /meta` beside the run's first reads (api.packageHosts). */
  packageHosts?: Promise<readonly string[]>,
): Promise<Sandbox | undefined> {
  const { tool_network: toolNetwork, allowed_hosts: allowedHosts } = settings.inputs;
  if (settings.inputs.sandbox === 'off') {
    log.warning(
      `sandbox: off: the tools run without a sandbox and can read the runner and its credentials ` +
        `(isolation: ${isolationOf(undefined)}).`,
    );
    if (toolNetwork !== 'all')
      log.warning(
        `tool_network: ${toolNetwork} needs the sandbox: with sandbox: off the tools reach every host.`,
      );
    return undefined;
  }
  const started = performance.now();
  const network = SANDBOX_NETWORKS[toolNetwork];
  try {
    const sandbox = await openSandbox({
      workspace: await openWorkspace(settings.workspace),
      network,
      forwardedPorts: forwardedPorts(allowedHosts).map(({ port }) => port),
      // A cloud login step's credentials file sits in the workspace: bash sees an empty file there.
      hidden: [...runnerFiles(process.env), ...credentialFiles(process.env), ...hidden],
      workspaceAccess,
      // The tools' git writes a layer of its own over the workspace's `.git`: the real one stays the checkout's.
      layerGitDir: true,
      ...(process.env.RUNNER_TOOL_CACHE ? { toolCache: process.env.RUNNER_TOOL_CACHE } : {}),
      warn: log.warning,
    });
    if (network === 'gated')
      await openGate(sandbox, settings, secrets, toolchains, packageHosts).catch(closing(sandbox));
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

/** Closes the sandbox before passing on why its gate could not open (as the sandbox's own failure). */
function closing(sandbox: Sandbox) {
  return (error: unknown): never => {
    sandbox.close();
    throw new SandboxError(`its network gate could not open: ${errorSentence(error)}`);
  };
}

/**
 * Opens the network gate on the sandbox; the log says so at once, and shows the list once the toolchains
 * have answered (they are asked beside the rest of the run's start, and only a tool's first request waits).
 */
async function openGate(
  sandbox: Sandbox,
  settings: Settings,
  secrets: readonly string[],
  toolchains: GateOptions['toolchains'],
  packageHosts: Promise<readonly string[]> = Promise.resolve([]),
): Promise<void> {
  const { provider, anthropic_base_url: baseUrl, allowed_hosts: allowedHosts } = settings.inputs;
  const model = endpointHost(provider, baseUrl);
  // Without GitHub's answer the list goes on without its registries: allowed_hosts can still name them.
  const packages = packageHosts.catch((error: unknown) => {
    log.warning(
      `GitHub's package hosts are not in the network allowlist: GET /meta failed (${errorSentence(error)}).`,
    );
    return [];
  });
  const gate = await NetworkGate.open({
    sandbox,
    toolchains,
    allowedHosts,
    github: { serverUrl: settings.serverUrl, apiUrl: settings.apiUrl, packages },
    guarded: model ? [{ host: model, what: "the model's API endpoint" }] : [],
    env: childEnv(process.env, [...secrets]),
    ...(process.env.HOME ? { home: process.env.HOME } : {}),
  });
  log.info(
    'Network: allowlist. The tools reach hosts only through the action’s proxy; the list follows once the ' +
      'toolchains have said which registries they use (before the first command runs).',
  );
  gate.allowlist.then(
    (list) =>
      log.group(`Network allowlist (${list.rules.length} hosts)`, [
        ...list.rules.map((rule) => `${ruleText(rule)}  (${rule.source})`),
        ...list.guarded.map(({ host, what }) => `${host}: ${what}, reached only when allowed_hosts names it`),
      ]),
    (error: unknown) => log.warning(`The network allowlist could not be made: ${errorSentence(error)}`),
  );
}

/** Which isolation the run's tools have, as the log and the checklist say it. */
export function isolationOf(sandbox: Sandbox | undefined): string {
  return isolationName(sandbox?.config.isolation ?? 'off');
}
