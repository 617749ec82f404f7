// The `mcp_servers` setting made into running servers: the configuration itself, or read from a file in the
// repository as the base branch's commit has it (through the reader the wiring gives, our own git: never the
// work tree, which the model and a pull request's head could have changed), and what the network gate does
// for them. It loads no MCP SDK: the configuration is read on the first model request's path, and the
// servers (servers.ts, with the SDK) start later, off it.
import {
  McpConfigError,
  parseMcpConfig,
  type McpConfig,
  type McpServersSetting,
} from '../settings/mcp-servers.js';
import { isLocal } from '../settings/mcp-servers.js';
import type { NetworkGate } from '../network/gate.js';
import { ruleFromUrl, type HostRule } from '../network/hosts.js';
import type { McpStartOptions } from './servers.js';

/** A file's text at the base branch's commit; undefined when the commit has no such file. */
export type BaseFileReader = (path: string) => Promise<string | undefined>;

/**
 * The configuration the setting names; throws McpConfigError (before the run starts) for a file that is
 * missing or wrong, saying where it was looked for.
 */
export async function mcpConfigOf(
  setting: McpServersSetting,
  read: BaseFileReader,
  env: NodeJS.ProcessEnv,
): Promise<McpConfig> {
  if (setting.kind === 'inline') return setting.config;
  const text = await read(setting.path);
  if (text === undefined)
    throw new McpConfigError(
      `mcp_servers names ${setting.path}, which the base branch does not have (it is read from the base branch, never from the work tree)`,
    );
  return parseMcpConfig(text, setting.path, env);
}

/**
 * What the network gate does for the servers, where the run has one: each remote server's host joins its
 * allowlist (configured by the maintainer, so allowed), and their requests go through its fetch, which decides
 * on the host and the address it leads to. A local server needs nothing here: the sandbox gives it the
 * gate's proxy as it gives every process it starts.
 */
export function throughGate(
  config: McpConfig,
  network: Pick<NetworkGate, 'allow' | 'fetch'> | undefined,
): Pick<McpStartOptions, 'fetch'> {
  if (!network) return {};
  const rules = config.servers
    .flatMap((server) => (isLocal(server) ? [] : [ruleFromUrl(server.url, 'mcp_servers')]))
    .filter((rule): rule is HostRule => rule !== undefined);
  if (rules.length > 0) network.allow(rules);
  return { fetch: network.fetch };
}
