// The CLI's MCP servers: the file --mcp-config names, read and checked before any run (a bad one is bad
// usage), and its servers started in the run's sandbox as the action starts them, not waited for.
import { readFileSync } from 'node:fs';
import { StartingServers } from '../mcp/starting.js';
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

/**
 * The servers, starting in the run's sandbox: the run takes their tools as each is up, as the action does
 * (agent/tools/late.ts); a server that fails is named on stderr and the run goes on.
 */
export function startMcp(
  config: McpConfig | undefined,
  timeoutSeconds: number,
  { runtime, secrets, snapshot }: { runtime: ToolRuntime; secrets: string[]; snapshot: Snapshot },
): StartingServers | undefined {
  if (!config) return undefined;
  const started = runtime.startServers(config, {
    snapshot: () => snapshot.directory(),
    env: childEnv(process.env, secrets),
    timeoutMs: timeoutSeconds * 1000,
    warn: (line) => stderr.print(`todo-agent: ${line}\n`),
  });
  const servers = new StartingServers(config, started);
  void servers.starting.settled.then(() => stderr.print(`todo-agent: MCP servers: ${servers.summary}\n`));
  return servers;
}
