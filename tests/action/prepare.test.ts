import { describe, expect, it } from 'vitest';
import { slowStart } from '../../src/action/prepare.js';
import { parseMcpConfig } from '../../src/settings/mcp-servers.js';

const config = (servers: Record<string, unknown>) =>
  parseMcpConfig(JSON.stringify({ mcpServers: servers }), 'mcp_servers', {});

describe("the MCP servers' slow start", () => {
  it('is told only past a few seconds, naming the servers that download their package at each run', () => {
    const servers = config({
      memory: { command: 'npx', args: ['-y', '@example/server-memory'], tools: ['*'] },
      notes: { command: '/usr/bin/uvx', args: ['notes-mcp'], tools: ['*'] },
      local: { command: 'node', args: ['tools/mcp.mjs'], tools: ['*'] },
    });
    expect(slowStart(4_999, servers)).toBeUndefined();
    expect(slowStart(7_250, servers)).toBe(
      'MCP servers took 7.3 s to start, and the model waited for them: memory, notes fetch their packages at ' +
        'each run unless an earlier step restores the cache or installs it (see docs/mcp.md, "Starting fast").',
    );
  });

  it('says the servers’ own start is the cause when none downloads anything', () => {
    const servers = config({ local: { command: 'node', args: ['tools/mcp.mjs'], tools: ['*'] } });
    expect(slowStart(6_000, servers)).toMatch(
      /took 6\.0 s to start.*each server starts in a sandbox of its own/,
    );
  });
});
