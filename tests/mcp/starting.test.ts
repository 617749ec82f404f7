// The servers as the first model request sees them while they start: their names at once, no tools yet, a
// refusal that says a server is still starting; then each one's tools as the servers list them, or why none
// came when they could not be started at all.
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startMcpServers, type McpServers } from '../../src/mcp/servers.js';
import { StartingServers } from '../../src/mcp/starting.js';
import { parseMcpConfig } from '../../src/settings/mcp-servers.js';
import { childEnv } from '../../src/sandbox/commands/child-env.js';

const HOSTILE = path.resolve(import.meta.dirname, '../support/mcp/hostile-server.mjs');
const config = parseMcpConfig(
  JSON.stringify({
    mcpServers: {
      hostile: { command: process.execPath, args: [HOSTILE, 'tools'], tools: ['fail'] },
      broken: { command: process.execPath, args: [HOSTILE, 'exit'], tools: ['*'] },
    },
  }),
  'mcp_servers',
  {},
);
const opened: McpServers[] = [];
afterAll(async () => await Promise.all(opened.map((servers) => servers.close())));

describe('StartingServers', () => {
  it('names the servers at once, refuses their tools as still starting, then offers what each listed', async () => {
    let start: (servers: McpServers) => void = () => undefined;
    const starting = new StartingServers(config, new Promise<McpServers>((resolve) => (start = resolve)));
    expect(starting.starting.names).toEqual(['hostile', 'broken']);
    expect([starting.tools, starting.servers]).toEqual([[], []]);
    expect(starting.summary).toBe('hostile (starting), broken (starting)');
    expect(starting.refusal('mcp__hostile__fail')).toBe(
      'mcp__hostile__fail is not offered yet: the MCP server "hostile" is still starting; a message says when its tools can be found',
    );
    expect(starting.refusal('bash')).toBeUndefined();

    const servers = startMcpServers(config, {
      workspace: process.cwd(),
      env: childEnv(process.env),
      timeoutMs: 20_000,
      warn: () => undefined,
    });
    opened.push(servers);
    start(servers);
    await starting.starting.settled;
    expect(starting.tools.map((tool) => tool.name)).toEqual(['mcp__hostile__fail']);
    expect([...starting.servers].sort()).toEqual([
      'broken: not available (it did not start)',
      'hostile: 1 tool (6 more it has are not allowed)',
    ]);
    expect(starting.summary).toBe('hostile (1 tool), broken (not available)');
    expect(starting.refusal('mcp__hostile__inject')).toMatch(
      /may be used only for the tools its configuration lists/,
    );
    expect(starting.refusal('mcp__broken__x')).toMatch(/the MCP server "broken" did not start/);
  }, 60_000);

  it('settles, and says why, when the servers could not be started at all', async () => {
    const starting = new StartingServers(
      config,
      Promise.reject(new Error('the sandbox for the tools could not be built')),
    );
    await starting.starting.settled;
    expect(starting.tools).toEqual([]);
    expect(starting.summary).toBe('hostile (not available), broken (not available)');
    expect(starting.refusal('mcp__hostile__fail')).toBe(
      'mcp__hostile__fail cannot be used: the MCP servers could not start (the sandbox for the tools could not be built)',
    );
  });
});
