// What the MCP servers' start costs: whether a run copies the snapshot's untracked files (only a local MCP server
// needs them; an inline configuration says so itself, a file is read as the checked-out commit has it, before any
// checkout), and the word to the maintainer when the start was slow.
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { mayStartLocalServers, slowStart } from '../../src/mcp/start-cost.js';
import { GitRepo } from '../../src/git/repo.js';
import { parseMcpConfig } from '../../src/settings/mcp-servers.js';

const LOCAL = { mcpServers: { notes: { command: 'node', args: ['tools/notes.mjs'], tools: ['note'] } } };
const REMOTE = {
  mcpServers: { docs: { type: 'http', url: 'https://mcp.docs.example/mcp', tools: ['search'] } },
};

const roots: string[] = [];
afterAll(async () => {
  for (const root of roots) await rm(root, { recursive: true, force: true });
});

/** A checkout whose commit holds these files (path → text). */
async function checkout(files: Record<string, string>): Promise<GitRepo> {
  const dir = await mkdtemp(path.join(tmpdir(), 'todo-agent-prepare-'));
  roots.push(dir);
  const git = (...args: string[]) =>
    execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], { cwd: dir });
  git('init', '-q');
  for (const [file, text] of Object.entries(files)) await writeFile(path.join(dir, file), text);
  git('add', '-A');
  git('commit', '-qm', 'base', '--allow-empty');
  return new GitRepo(dir);
}

describe('mayStartLocalServers', () => {
  it('copies for an inline configuration with a local server, and not for remote ones alone', async () => {
    const git = await checkout({});
    const inline = (config: object) => ({
      kind: 'inline' as const,
      config: parseMcpConfig(JSON.stringify(config), 'mcp_servers', {}),
    });
    expect(await mayStartLocalServers(inline(LOCAL), git)).toBe(true);
    expect(await mayStartLocalServers(inline(REMOTE), git)).toBe(false);
    expect(await mayStartLocalServers(undefined, git)).toBe(false);
  });

  it('reads a file as the checked-out commit has it: a local server copies, remote ones alone do not', async () => {
    const file = { kind: 'file' as const, path: '.mcp.json' };
    expect(await mayStartLocalServers(file, await checkout({ '.mcp.json': JSON.stringify(LOCAL) }))).toBe(
      true,
    );
    const remote = await checkout({ '.mcp.json': JSON.stringify(REMOTE) });
    expect(await mayStartLocalServers(file, remote)).toBe(false);
    // What the work tree holds does not count: only the commit.
    await writeFile(path.join(remote.dir, '.mcp.json'), JSON.stringify(LOCAL));
    expect(await mayStartLocalServers(file, remote)).toBe(false);
    // No such file: nothing to start; one that is not a configuration: a copy, in case.
    expect(await mayStartLocalServers(file, await checkout({}))).toBe(false);
    expect(await mayStartLocalServers(file, await checkout({ '.mcp.json': '{ not json' }))).toBe(true);
  });
});

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
    // A package manager fetches only through its downloading verb (`pnpm dlx`), not when it runs a script.
    const managers = config({
      dlx: { command: 'pnpm', args: ['dlx', '@example/server-search'], tools: ['*'] },
      tool: { command: 'uv', args: ['tool', 'run', 'notes-mcp'], tools: ['*'] },
      script: { command: 'yarn', args: ['run', 'mcp'], tools: ['*'] },
    });
    expect(slowStart(6_000, managers)).toMatch(/waited for them: dlx, tool fetch their packages at each run/);
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

  it('says their tools came late, not that the model waited, where the model was asked without them', () => {
    const servers = config({ local: { command: 'node', args: ['tools/mcp.mjs'], tools: ['*'] } });
    expect(slowStart(6_000, servers, false)).toBe(
      'MCP servers took 6.0 s to start, and their tools reached the model only then: each server starts in a ' +
        'sandbox of its own and lists its tools before the model can find them.',
    );
  });
});
