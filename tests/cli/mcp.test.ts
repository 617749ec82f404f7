// The CLI's --mcp-config: the file read and checked before any run, each problem said in one sentence.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mcpConfigFile, McpConfigError, startMcp } from '../../src/cli/mcp.js';
import { Snapshot } from '../../src/git/snapshot.js';
import { ToolRuntime } from '../../src/runtime/tool-runtime.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cli-mcp-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('--mcp-config', () => {
  it("reads Claude Code's JSON from the file, ${VAR} filled from the environment", async () => {
    const file = join(dir, 'mcp.json');
    await writeFile(
      file,
      JSON.stringify({
        mcpServers: { docs: { command: 'docs-mcp', env: { HOME_DIR: '${HOME}' }, tools: ['search'] } },
      }),
    );
    const config = mcpConfigFile(file);
    expect(config.servers).toEqual([
      { name: 'docs', command: 'docs-mcp', args: [], env: { HOME_DIR: process.env.HOME }, tools: ['search'] },
    ]);
  });

  it('says why a file cannot be used: missing, or a server without its tools', async () => {
    expect(() => mcpConfigFile(join(dir, 'nope.json'))).toThrow(
      new McpConfigError(`--mcp-config: cannot read ${join(dir, 'nope.json')} (ENOENT)`),
    );
    const file = join(dir, 'bad.json');
    await writeFile(file, '{"mcpServers": {"docs": {"command": "docs-mcp"}}}');
    expect(() => mcpConfigFile(file)).toThrow(/^--mcp-config .*bad\.json: server "docs": tools is required/);
  });

  it('starts nothing without a configuration', async () => {
    expect(
      await startMcp(undefined, 60, {
        runtime: await ToolRuntime.open(dir, {
          network: 'all',
          allowedHosts: [],
          gate: {
            toolchains: Promise.resolve({ env: {}, projectFiles: {} }),
            github: { serverUrl: 'https://github.com', apiUrl: 'https://api.github.com' },
            env: {},
          },
        }),
        secrets: [],
        snapshot: await Snapshot.take({ workspace: dir, kind: 'directory', copy: false, env: {} }),
      }),
    ).toBeUndefined();
  });
});
