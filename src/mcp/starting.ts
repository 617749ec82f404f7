// The maintainer's MCP servers as the model's first request sees them while they are still starting (the
// tools' runtime they start in may not even be built yet): their names at once, each one's tools as it lists
// them (tools/late.ts adds them from the next request on), and a refusal that says a server is still starting.
import type { OutsideTool, OutsideTools } from '../agent/tools/types.js';
import type { McpConfig } from '../settings/mcp-servers.js';
import type { McpServers } from './servers.js';
import { stillStarting } from './start-cost.js';

export class StartingServers implements OutsideTools {
  readonly starting: { names: readonly string[]; settled: Promise<void> };
  #servers: McpServers | undefined;
  #failed: string | undefined;

  /** `started`: the servers once they are starting (rejected: they could not be, e.g. no sandbox). */
  constructor(config: McpConfig, started: Promise<McpServers>) {
    const names = config.servers.map((server) => server.name);
    const settled = started.then(
      async (servers) => {
        this.#servers = servers;
        await servers.settled;
      },
      (error: unknown) => {
        this.#failed = error instanceof Error ? error.message : String(error);
      },
    );
    this.starting = { names, settled };
  }

  get tools(): readonly OutsideTool[] {
    return this.#servers?.tools ?? [];
  }

  /** One line per server that is up or failed (in the order they did). */
  get servers(): readonly string[] {
    return this.#servers?.servers ?? [];
  }

  /** The servers and how each fared, for the checklist's footer and the log: `memory (9 tools)`. */
  get summary(): string {
    if (this.#servers) return this.#servers.summary;
    return this.starting.names
      .map((name) => `${name} (${this.#failed ? 'not available' : 'starting'})`)
      .join(', ');
  }

  refusal(name: string): string | undefined {
    if (this.#servers) return this.#servers.refusal(name);
    const server = this.starting.names.find((candidate) => name.startsWith(`mcp__${candidate}__`));
    if (!server) return undefined;
    return this.#failed
      ? `${name} cannot be used: the MCP servers could not start (${this.#failed})`
      : stillStarting(name, server);
  }
}
