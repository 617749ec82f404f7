// The mcp_servers setting made into a configuration (src/mcp/open.ts): inline, or read from the base branch
// (never the work tree), and what the network gate learns of the remote servers.
import { describe, expect, it } from 'vitest';
import { mcpConfigOf, throughGate } from '../../src/mcp/open.js';
import type { NetworkGate } from '../../src/network/gate.js';
import type { HostRule } from '../../src/network/hosts.js';
import { McpConfigError, parseMcpConfig } from '../../src/settings/mcp-servers.js';

const FILE = JSON.stringify({
  mcpServers: {
    notes: { command: 'node', args: ['tools/notes.mjs'], tools: ['*'] },
    tickets: { type: 'http', url: 'https://tickets.example.test:8443/mcp', tools: ['search'] },
    docs: { type: 'http', url: 'https://docs.example.test/mcp', tools: ['*'] },
  },
});

describe('mcpConfigOf', () => {
  it('takes an inline configuration as it is, reading nothing', async () => {
    const config = parseMcpConfig(FILE, 'mcp_servers', {});
    const read = async (path: string) => {
      throw new Error(`read ${path}`);
    };
    expect(await mcpConfigOf({ kind: 'inline', config }, read, {})).toBe(config);
  });

  it('reads a named file through the reader it is given (the base branch), and parses it', async () => {
    const asked: string[] = [];
    const config = await mcpConfigOf(
      { kind: 'file', path: '.github/mcp.json' },
      async (path) => (asked.push(path), FILE),
      {},
    );
    expect(asked).toEqual(['.github/mcp.json']);
    expect(config.servers.map((server) => server.name).sort()).toEqual(['docs', 'notes', 'tickets']);
  });

  it('says where it looked when the base branch has no such file, and when the file is wrong', async () => {
    const missing = mcpConfigOf({ kind: 'file', path: '.github/mcp.json' }, async () => undefined, {});
    await expect(missing).rejects.toBeInstanceOf(McpConfigError);
    await expect(missing).rejects.toThrow(
      'mcp_servers names .github/mcp.json, which the base branch does not have (it is read from the base branch, never from the work tree)',
    );
    await expect(
      mcpConfigOf({ kind: 'file', path: '.github/mcp.json' }, async () => '{ not json', {}),
    ).rejects.toThrow(/^\.github\/mcp\.json is not valid JSON/);
  });
});

describe('throughGate', () => {
  const config = parseMcpConfig(FILE, 'mcp_servers', {});

  it('without a gate, changes nothing: the servers use the plain fetch', () => {
    expect(throughGate(config, undefined)).toEqual({});
  });

  it("allows each remote server's host and port on the gate, names the setting, and hands its fetch on", () => {
    const allowed: HostRule[][] = [];
    const gateFetch = (async () => new Response('')) as NetworkGate['fetch'];
    const gate = { allow: (rules: HostRule[]) => void allowed.push(rules), fetch: gateFetch };
    expect(throughGate(config, gate)).toEqual({ fetch: gateFetch });
    expect(allowed).toHaveLength(1);
    expect(allowed[0]!.sort((a, b) => a.host.localeCompare(b.host))).toEqual([
      { host: 'docs.example.test', source: 'mcp_servers' },
      { host: 'tickets.example.test', port: 8443, source: 'mcp_servers' },
    ]);
  });

  it('allows nothing when every server is local', () => {
    const local = parseMcpConfig(
      JSON.stringify({ mcpServers: { notes: { command: 'node', tools: ['*'] } } }),
      'x',
      {},
    );
    let calls = 0;
    const gate = { allow: () => void calls++, fetch: fetch as NetworkGate['fetch'] };
    expect(throughGate(local, gate)).toEqual({ fetch });
    expect(calls).toBe(0);
  });
});
