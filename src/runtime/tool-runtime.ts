// The tools' runtime for one run, owned in one place for the action and the CLI: the sandbox, its network
// gate and the maintainer's MCP servers, opened from one description of what the run wants, handed back as
// one object, and closed in the one right order (the servers, each stopped and then killed with what it
// started; then the sandbox, its gate with it) whatever failed.
import type { HostRule } from '../network/hosts.js';
import { forwardedPorts, NetworkGate, readRunnerSettings, type GateOptions } from '../network/gate.js';
import type { Sandbox } from '../sandbox/namespaces.js';
import { openSandbox, type SandboxRequest } from '../sandbox/setup.js';
import { allowlistOn, toolsNetwork, type ToolNetworkSetting } from '../settings/parse.js';
import type { McpConfig } from '../settings/mcp-servers.js';
import type { McpServers } from '../mcp/servers.js';

export interface ToolRuntimeRequest {
  /** The sandbox as the run wants it (without its network, which `network` says); absent: none. */
  sandbox?: Omit<SandboxRequest, 'workspace' | 'network' | 'forwardedPorts'>;
  /** tool_network (--tool-network). */
  network: ToolNetworkSetting;
  /** allowed_hosts (--allowed-hosts). */
  allowedHosts: readonly HostRule[];
  /** What the gate needs besides the sandbox and allowed_hosts (used under `allowlist` with a sandbox). */
  gate: Omit<GateOptions, 'sandbox' | 'allowedHosts' | 'runner'>;
  /** The runner's HOME, where its npm and pip settings lie (runner/settings.ts). */
  home?: string;
}

interface ServersRequest {
  /** The tools' environment (without secrets): each local server gets it and its own `env`. */
  env: NodeJS.ProcessEnv;
  timeoutMs: number;
  /** The trusted snapshot's directory, which local servers run from (src/git/snapshot.ts). */
  snapshot: () => Promise<string>;
  warn: (line: string) => void;
}

export class ToolRuntime {
  readonly workspace: string;
  /** The tools' sandbox; undefined when the run has none. */
  readonly sandbox: Sandbox | undefined;
  /** The gate, when the allowlist is on (settings/parse.ts's `allowlistOn`: `allowlist` with a sandbox). */
  readonly gate: NetworkGate | undefined;
  #servers: McpServers | undefined;
  #closed = false;

  private constructor(workspace: string, sandbox: Sandbox | undefined, gate: NetworkGate | undefined) {
    this.workspace = workspace;
    this.sandbox = sandbox;
    this.gate = gate;
  }

  /**
   * Opens the sandbox, which shows the runner's toolchain settings without their secrets, and under
   * `allowlist` its gate, which allows the registries they name; throws (SandboxError for the sandbox)
   * leaving nothing open.
   */
  static async open(workspace: string, request: ToolRuntimeRequest): Promise<ToolRuntime> {
    const network = toolsNetwork(request.network, request.sandbox !== undefined);
    if (!request.sandbox || !network) return new ToolRuntime(workspace, undefined, undefined);
    const runner = await readRunnerSettings(request.gate.env, request.home, workspace, request.sandbox.warn);
    const gated = allowlistOn(request.network, true);
    const sandbox = await openSandbox({
      ...request.sandbox,
      workspace,
      network,
      hidden: [...(request.sandbox.hidden ?? []), ...runner.hidden],
      shown: runner.shown,
      forwardedPorts: forwardedPorts([...request.allowedHosts, ...(gated ? runner.rules : [])]).map(
        ({ port }) => port,
      ),
    });
    if (!gated) return new ToolRuntime(workspace, sandbox, undefined);
    try {
      const gate = await NetworkGate.open({
        ...request.gate,
        sandbox,
        allowedHosts: request.allowedHosts,
        runner: runner.rules,
      });
      return new ToolRuntime(workspace, sandbox, gate);
    } catch (error) {
      sandbox.close();
      throw error;
    }
  }

  /** The MCP servers this run has, once started (`startServers`). */
  get servers(): McpServers | undefined {
    return this.#servers;
  }

  /**
   * Starts the configured servers (the SDK loads only for a run that has some): local ones each in a sandbox
   * of its own built like the tools', remote ones through the gate, whose list their hosts join. Returns
   * once they are starting: each one's tools join as it lists them (`settled` once all have).
   */
  async startServers(config: McpConfig, request: ServersRequest): Promise<McpServers> {
    const [{ startMcpServers }, { throughGate }] = await Promise.all([
      import('../mcp/servers.js'),
      import('../mcp/open.js'),
    ]);
    this.#servers = startMcpServers(config, {
      workspace: this.workspace,
      ...(this.sandbox ? { sandbox: this.sandbox } : {}),
      ...throughGate(config, this.gate),
      ...request,
    });
    if (this.#closed) await this.#servers.close();
    return this.#servers;
  }

  /** Stops the servers, then closes the sandbox and its gate; once, whatever failed before. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#servers?.close();
    this.sandbox?.close();
  }
}
