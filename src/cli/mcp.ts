// The CLI's MCP servers: the file --mcp-config names, read and checked before any run (a bad one is bad
// usage), and its servers started in the run's sandbox as the action starts them.
import { readFileSync } from 'node:fs';
import type { McpServers } from '../mcp/servers.js';
import type { ToolRuntime } from '../runtime/tool-runtime.js';
import { childEnv } from '../sandbox/commands/child-env.js';
import { McpConfigError, parseMcpConfig, type McpConfig } from '../settings/mcp-servers.js';
import type { Snapshot } from '../git/snapshot.js';
import { stderr } from './output.js';

export { McpConfigError };

/** The configuration in `file`; throws McpConfigError saying what is wrong with it. */
export function mcpConfigFile(file: string): McpConfig {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new McpConfigError(
      `--mcp-config: cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? error})`,
    );
  }
  return parseMcpConfig(text, `--mcp-config ${file}`, process.env);
}

/** The servers, started in the run's sandbox; a server that fails is named on stderr and the run goes on. */
export async function startMcp(
  config: McpConfig | undefined,
  timeoutSeconds: number,
  { runtime, secrets, snapshot }: { runtime: ToolRuntime; secrets: string[]; snapshot: Snapshot },
): Promise<McpServers | undefined> {
  if (!config) return undefined;
  const servers = await runtime.startServers(config, {
    snapshot: () => snapshot.directory(),
    env: childEnv(process.env, secrets),
    timeoutMs: timeoutSeconds * 1000,
    warn: (line) => stderr.print(`todo-agent: ${line}\n`),
  });
  stderr.print(`todo-agent: MCP servers: ${servers.summary}\n`);
  return servers;
}
