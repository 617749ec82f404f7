// The tools' runtime as the settings ask for it (src/runtime/tool-runtime.ts): the sandbox, with its network
// gate under `tool_network: allowlist`, and later the MCP servers (their configuration read, their secrets
// masked, their start timed once they have all started); or a sentence saying why no sandbox could be built.
import { childEnv } from '../../sandbox/commands/child-env.js';
import { credentialFiles } from '../../sandbox/credential-files.js';
import { SandboxError, type WorkspaceAccess } from '../../sandbox/setup.js';
import type { Sandbox } from '../../sandbox/namespaces.js';
import { openWorkspace } from '../../agent/workspace.js';
import { runnerFiles } from '../../sandbox/runner-files.js';
import { isolationName, NoIsolationError, waysOut } from '../../sandbox/rootless.js';
import { endpointHost } from '../../model/providers.js';
import { DEFAULT_MODEL, modelInfo } from '../../model/catalogue.js';
import type { GateOptions, NetworkGate } from '../../network/gate.js';
import { ruleText } from '../../network/hosts.js';
import { addSecret, log } from '../../runner/output.js';
import { ToolRuntime } from '../../runtime/tool-runtime.js';
import type { Settings } from '../../settings/settings.js';
import type { McpServersSetting } from '../../settings/mcp-servers.js';
import type { McpServers } from '../../mcp/servers.js';
import { slowStart } from '../../mcp/start-cost.js';
import type { Snapshot } from '../../git/snapshot.js';
import { errorSentence } from '../../text/error-sentence.js';

/**
 * The tools' runtime, with a sandbox unless the workflow turned it off; a sandbox that cannot be built stops
 * the run. `read-only` (a plan run) lets no command change the workspace.
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
): Promise<ToolRuntime> {
  const {
    tool_network: toolNetwork,
    allowed_hosts: allowedHosts,
    provider,
    anthropic_base_url: baseUrl,
  } = settings.inputs;
  const workspace = await openWorkspace(settings.workspace);
  const model = endpointHost(provider, baseUrl);
  const network = {
    network: toolNetwork,
    allowedHosts,
    gate: {
      toolchains,
      github: { serverUrl: settings.serverUrl, apiUrl: settings.apiUrl, packages: packages(packageHosts) },
      guarded: model ? [{ host: model, what: "the model's API endpoint" }] : [],
      env: childEnv(process.env, [...secrets]),
    },
    ...(process.env.HOME ? { home: process.env.HOME } : {}),
  };
  if (settings.inputs.sandbox === 'off') {
    log.warning(
      `sandbox: off: the tools run without a sandbox and can read the runner and its credentials ` +
        `(isolation: ${isolationOf(undefined)}).`,
    );
    if (toolNetwork !== 'all')
      log.warning(
        `tool_network: ${toolNetwork} needs the sandbox: with sandbox: off the tools reach every host.`,
      );
    return await ToolRuntime.open(workspace, network);
  }
  const started = performance.now();
  try {
    const runtime = await ToolRuntime.open(workspace, {
      ...network,
      sandbox: {
        // A cloud login step's credentials file sits in the workspace: bash sees an empty file there.
        hidden: [...runnerFiles(process.env), ...credentialFiles(process.env), ...hidden],
        workspaceAccess,
        // The tools' git writes a layer of its own over the workspace's `.git`: the real one stays the checkout's.
        layerGitDir: true,
        ...(process.env.RUNNER_TOOL_CACHE ? { toolCache: process.env.RUNNER_TOOL_CACHE } : {}),
        warn: log.warning,
      },
    }).catch((error: unknown) => {
      if (error instanceof SandboxError) throw error;
      // The sandbox was built; its gate could not open (as the sandbox's own failure).
      throw new SandboxError(`its network gate could not open: ${errorSentence(error)}`);
    });
    if (runtime.gate) logList(runtime.gate);
    const ms = Math.round(performance.now() - started);
    log.info(`Sandbox ready in ${ms} ms (isolation: ${isolationOf(runtime.sandbox)}).`);
    return runtime;
  } catch (error) {
    if (!(error instanceof SandboxError)) throw error;
    const fix = error instanceof NoIsolationError ? error.fix : undefined;
    throw new Error(`the sandbox for the tools could not be built (${error.message}); ${waysOut(fix)}`, {
      cause: error,
    });
  }
}

/** Without GitHub's answer the list goes on without its registries: allowed_hosts can still name them. */
function packages(packageHosts: Promise<readonly string[]> = Promise.resolve([])) {
  return packageHosts.catch((error: unknown) => {
    log.warning(
      `GitHub's package hosts are not in the network allowlist: GET /meta failed (${errorSentence(error)}).`,
    );
    return [];
  });
}

/**
 * The log says at once that the gate is open, and shows the list once the toolchains have answered (they
 * are asked in a sandbox of their own beside the rest of the run's start; only a request the list known
 * so far cannot decide waits for them).
 */
function logList(gate: NetworkGate): void {
  log.info(
    'Network: allowlist. The tools reach hosts only through the action’s proxy; the list follows once the ' +
      'toolchains have said which registries they use (a request to a host it cannot decide yet waits for it).',
  );
  gate.allowlist.then(
    (list) =>
      log.group(`Network allowlist (${list.rules.length} hosts)`, [
        ...list.rules.map((rule) => `${ruleText(rule)}  (${rule.source})`),
        ...list.guarded.map(({ host, what }) => `${host}: ${what}, reached only when allowed_hosts names it`),
        ...(list.unanswered
          ? [`Incomplete: ${list.unanswered.join(', ')} had not said which registries they use in time.`]
          : []),
      ]),
    (error: unknown) => log.warning(`The network allowlist could not be made: ${errorSentence(error)}`),
  );
}

/** Which isolation the run's tools have, as the log and the checklist say it. */
export function isolationOf(sandbox: Sandbox | undefined): string {
  return isolationName(sandbox?.config.isolation ?? 'off');
}

/**
 * The MCP configuration the setting gives, read from the base branch when it names a file; the values its
 * `${VAR}` filled in are masked before anything can print them.
 */
export async function loadMcpConfig(
  setting: McpServersSetting,
  readBase: (path: string) => Promise<string | undefined>,
) {
  const { mcpConfigOf } = await import('../../mcp/open.js');
  const config = await mcpConfigOf(setting, readBase, process.env);
  for (const secret of config.secrets) addSecret(secret);
  return config;
}

/**
 * Starts the servers (the SDK loads only for a run that has some) and returns while they start; says in the
 * log how each fared once all have.
 */
export async function startMcp(
  config: Awaited<ReturnType<typeof loadMcpConfig>>,
  settings: Settings,
  runtime: ToolRuntime,
  secrets: string[],
  snapshot: Snapshot,
): Promise<McpServers> {
  const started = performance.now();
  const servers = await runtime.startServers(config, {
    snapshot: () => snapshot.directory(),
    env: childEnv(process.env, secrets),
    timeoutMs: settings.inputs.mcp_timeout * 1000,
    warn: log.warning,
  });
  void servers.settled.then(() => {
    const ms = Math.round(performance.now() - started);
    log.info(`MCP servers ready in ${ms} ms: ${servers.summary}.`);
    // A model without tool search is asked only once every server is up (agent/tools/late.ts).
    const slow = slowStart(ms, config, !modelInfo(settings.inputs.model || DEFAULT_MODEL).toolSearch);
    if (slow) log.warning(slow);
  });
  return servers;
}
