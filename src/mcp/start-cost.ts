// What the MCP servers' start costs a run: whether a local server may start (then the trusted snapshot copies
// the untracked files it may need), and a word to the maintainer when the start took more than a few seconds
// (the first model request waited for it, or the servers' tools came late), with why: a package fetched at
// every run, or each server's own sandbox.
import path from 'node:path';
import type { GitRepo } from '../git/repo.js';
import { isLocal, parseMcpConfig, type McpConfig, type McpServersSetting } from '../settings/mcp-servers.js';

/**
 * A run whose MCP servers may include a local one: inline, as configured; in a file, as the commit the
 * workflow checked out has it, read before any checkout (the base branch's, read later, is that commit or
 * one near it). A file that cannot be read as a configuration counts as one with a local server; a local
 * server configured after all but not foreseen here runs with the base commit's files alone.
 */
export async function mayStartLocalServers(
  setting: McpServersSetting | undefined,
  git: GitRepo,
): Promise<boolean> {
  if (!setting) return false;
  if (setting.kind === 'inline') return setting.config.servers.some(isLocal);
  const text = await git.fileAt('HEAD', setting.path).catch(() => undefined);
  if (text === undefined) return false;
  try {
    return parseMcpConfig(text, setting.path, process.env).servers.some(isLocal);
  } catch {
    return true;
  }
}

/** A start of the MCP servers longer than this is told to the maintainer, with why. */
const SLOW_START_MS = 5_000;
/** Commands that fetch their package when it is not in their cache (npx, uvx and the like). */
const DOWNLOADERS = new Set(['npx', 'uvx', 'bunx', 'pipx', 'pnpx']);
/** Package managers whose first argument makes them one (`pnpm dlx`, `yarn dlx`, `uv tool run`, `bun x`). */
const DOWNLOADING_VERBS: Readonly<Record<string, readonly string[]>> = {
  pnpm: ['dlx'],
  yarn: ['dlx'],
  uv: ['tool'],
  bun: ['x'],
};

/** Whether a local server's command fetches its package when the package is not in its cache. */
function fetchesItsPackage(server: { command: string; args: readonly string[] }): boolean {
  const program = path.basename(server.command);
  return DOWNLOADERS.has(program) || (DOWNLOADING_VERBS[program]?.includes(server.args[0] ?? '') ?? false);
}

/**
 * Says why the servers took `ms` to start, when that is longer than a few seconds; else undefined. `waited`:
 * the model was asked only once they had (a model without tool search); else their tools joined late.
 */
export function slowStart(ms: number, config: Pick<McpConfig, 'servers'>, waited = true): string | undefined {
  if (ms < SLOW_START_MS) return undefined;
  const fetching = config.servers
    .filter(isLocal)
    .filter(fetchesItsPackage)
    .map((server) => server.name);
  const why =
    fetching.length > 0
      ? `${fetching.join(', ')} ${fetching.length > 1 ? 'fetch their packages' : 'fetches its package'} at each run unless an earlier step restores the cache or installs it (see docs/mcp.md, "Starting fast")`
      : `each server starts in a sandbox of its own and lists its tools before ${waited ? 'the model is asked anything' : 'the model can find them'}`;
  const cost = waited ? 'the model waited for them' : 'their tools reached the model only then';
  return `MCP servers took ${(ms / 1000).toFixed(1)} s to start, and ${cost}: ${why}.`;
}

/** The refusal of a tool whose server has not finished starting (the model was asked without waiting). */
export function stillStarting(name: string, server: string): string {
  return `${name} is not offered yet: the MCP server "${server}" is still starting; a message says when its tools can be found`;
}
