// The maintainer's MCP servers for one run: all started at once, each server's tools offered to the model as
// `mcp__<server>__<tool>` when its configuration lists them (and never otherwise), and every server stopped
// when the run ends, however it ends.
import type { Tool as McpTool } from '@modelcontextprotocol/sdk/types.js';
import { ALL_TOOLS, type McpConfig } from '../settings/mcp-servers.js';
import type { OutsideTool, OutsideTools } from '../agent/tools/types.js';
import { stripInvisible } from '../text/invisible.js';
import { Connection, type ConnectionOptions } from './connection.js';
import { stillStarting } from './start-cost.js';

/** The API's rule for a tool's name. */
const TOOL_NAME = /^[a-zA-Z0-9_-]{1,128}$/;
/** A tool's own description is kept to this many characters: it is the server's text in every request. */
export const MAX_DESCRIPTION = 2_000;
/** A tool whose input schema is larger than this (as JSON) is left out: it would weigh on every request. */
const MAX_SCHEMA_CHARS = 50_000;
/** How long stopping the servers may take before what is left is killed. */
const CLOSE_MS = 1_500;

/** `warn` also hears of a listed tool the server lacks, and of a tool left out. */
export type McpStartOptions = ConnectionOptions;

/** `mcp__<server>__<tool>`, the name the model calls it by. */
export function toolName(server: string, tool: string): string {
  return `mcp__${server}__${tool.replace(/[^a-zA-Z0-9_-]/g, '_')}`;
}

export class McpServers implements OutsideTools {
  readonly tools: OutsideTool[] = [];
  readonly servers: string[] = [];
  readonly #connections: Connection[];
  /** Every name a configured tool would have, offered or not: to refuse the ones left out clearly. */
  readonly #configured: Map<string, Connection>;
  /** Once every server has started (its tools added) or failed (its line says so). */
  settled: Promise<void> = Promise.resolve();

  constructor(connections: Connection[]) {
    this.#connections = connections;
    this.#configured = new Map(connections.map((c) => [`mcp__${c.name}__`, c]));
  }

  /** The configured servers' names, started or not. */
  get names(): string[] {
    return this.#connections.map((c) => c.name);
  }

  /** The servers and how each fared, for the checklist's footer and the log: `memory (9 tools)`. */
  get summary(): string {
    return this.#connections
      .map((c) => {
        const count = this.tools.filter((tool) => tool.name.startsWith(`mcp__${c.name}__`)).length;
        if (!this.#settled(c)) return `${c.name} (starting)`;
        return c.problem ? `${c.name} (not available)` : `${c.name} (${count} tool${count === 1 ? '' : 's'})`;
      })
      .join(', ');
  }

  refusal(name: string): string | undefined {
    const prefix = [...this.#configured.keys()].find((key) => name.startsWith(key));
    if (!prefix) return undefined;
    const connection = this.#configured.get(prefix)!;
    const { server } = connection;
    if (connection.problem && !connection.started)
      return `${name} cannot be used: the MCP server "${server.name}" did not start (${connection.problem}), so none of its tools are offered in this run`;
    if (!this.#settled(connection)) return stillStarting(name, server.name);
    return `${name} is not offered: the MCP server "${server.name}" may be used only for the tools its configuration lists (${server.tools.join(', ')})`;
  }

  /** Whether the server is up with its tools added, or has failed (its line is in `servers` either way). */
  #settled(connection: Connection): boolean {
    return this.servers.some((line) => line.startsWith(`${connection.name}: `));
  }

  /** Stops every server (within about CLOSE_MS; what is left then is killed), started or still starting. */
  async close(): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, CLOSE_MS);
    });
    await Promise.race([Promise.all(this.#connections.map((c) => c.close())), late]);
    clearTimeout(timer);
    for (const connection of this.#connections) connection.kill();
    // A server still starting may be building its sandbox inside the tools' one, which closes after this.
    await Promise.all(this.#connections.map((connection) => connection.built()));
  }

  /** Adds a started server's allowed tools; says what it left out. */
  add(connection: Connection, listed: readonly McpTool[], warn: (line: string) => void): void {
    const { server } = connection;
    const all = server.tools.includes(ALL_TOOLS);
    const allowed = new Set(server.tools);
    const offered = listed.filter((tool) => all || allowed.has(tool.name));
    for (const name of server.tools.filter((name) => name !== ALL_TOOLS))
      if (!listed.some((tool) => tool.name === name))
        warn(`MCP server "${server.name}": it has no tool "${name}", which its configuration lists.`);
    let count = 0;
    for (const tool of offered) {
      const outside = this.#outsideTool(connection, tool, warn);
      if (!outside) continue;
      this.tools.push(outside);
      count++;
    }
    const kept = listed.length - offered.length;
    this.servers.push(
      `${server.name}: ${count} tool${count === 1 ? '' : 's'}${kept > 0 ? ` (${kept} more it has are not allowed)` : ''}`,
    );
  }

  #outsideTool(connection: Connection, tool: McpTool, warn: (line: string) => void): OutsideTool | undefined {
    const { server } = connection;
    const name = toolName(server.name, tool.name);
    const leftOut = (why: string): undefined => {
      warn(`MCP server "${server.name}": its tool "${tool.name}" is left out: ${why}.`);
      return undefined;
    };
    if (!TOOL_NAME.test(name))
      return leftOut(`${name} is longer than the 128 characters a tool name may have`);
    if (this.tools.some((other) => other.name === name))
      return leftOut(`another of its tools is also ${name}`);
    const { $schema: _ignored, ...schema } = tool.inputSchema;
    if (JSON.stringify(schema).length > MAX_SCHEMA_CHARS)
      return leftOut(`its input schema is over ${MAX_SCHEMA_CHARS} characters`);
    return {
      name,
      description: describe(server.name, tool),
      inputSchema: { ...schema, type: 'object' },
      readOnly: server.readOnly === true || tool.annotations?.readOnlyHint === true,
      run: (input, context) => connection.call(tool.name, input, context),
    };
  }
}

/**
 * What the model reads of a tool: whose it is, then the server's own words (without invisible characters,
 * cut to MAX_DESCRIPTION), which say what the tool does and carry no more weight than any server output.
 */
function describe(server: string, tool: McpTool): string {
  const own = stripInvisible(tool.description ?? tool.title ?? '').trim();
  const cut = own.length > MAX_DESCRIPTION ? `${own.slice(0, MAX_DESCRIPTION)}… [cut]` : own;
  return `[MCP server "${server}", its description] ${cut || '(none given)'}`;
}

/**
 * Starts every configured server at once and returns without waiting: each server's tools are added as it
 * lists them (`settled` once all have); a server that does not start within the timeout, or fails, is left
 * out with a warning, and the run goes on with the others.
 */
export function startMcpServers(config: McpConfig, options: McpStartOptions): McpServers {
  const connections = config.servers.map((server) => new Connection(server, options));
  const servers = new McpServers(connections);
  servers.settled = Promise.all(
    connections.map(async (connection) => {
      const listed = await connection.start();
      if (connection.problem) {
        options.warn(`MCP server "${connection.name}" is left out: ${connection.problem}.`);
        servers.servers.push(`${connection.name}: not available (it did not start)`);
      } else servers.add(connection, listed, options.warn);
    }),
  ).then(() => undefined);
  return servers;
}
