// The tools' runtime: one object that opens the sandbox, its gate under the allowlist and the MCP servers,
// and closes them in one order (the servers, then the sandbox and its gate), whatever failed.
import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { childEnv } from '../../src/sandbox/commands/child-env.js';
import { ToolRuntime, type ToolRuntimeRequest } from '../../src/runtime/tool-runtime.js';
import { processesNamed } from '../support/processes.js';

const HOSTILE = path.resolve(import.meta.dirname, '../support/mcp/hostile-server.mjs');
const root = await mkdtemp(path.join(tmpdir(), 'tool-runtime-'));
await chmod(root, 0o755);
const ws = path.join(root, 'ws');
await mkdir(ws);
afterAll(async () => await rm(root, { recursive: true, force: true }));

const request = (network: ToolRuntimeRequest['network']): ToolRuntimeRequest => ({
  network,
  allowedHosts: [],
  gate: {
    toolchains: Promise.resolve({ env: childEnv(process.env), projectFiles: {} }),
    github: { serverUrl: 'https://github.com', apiUrl: 'https://api.github.com' },
    env: childEnv(process.env),
  },
});

describe('ToolRuntime', () => {
  it('opens a gate only under the allowlist with a sandbox, and none without a sandbox', async () => {
    const none = await ToolRuntime.open(ws, request('allowlist'));
    expect([none.sandbox, none.gate]).toEqual([undefined, undefined]);
    const open = await ToolRuntime.open(ws, { ...request('none'), sandbox: {} });
    expect(open.sandbox?.config.network).toBe('none');
    expect(open.gate).toBeUndefined();
    await open.close();
  });

  it('hides a runner settings file it cannot read as one, and says so in the sandbox’s warnings', async () => {
    const home = path.join(root, 'home');
    const big = path.join(home, '.config', 'pip', 'pip.conf');
    await mkdir(path.dirname(big), { recursive: true });
    await writeFile(big, `[global]\n${'#'.repeat(5 * 2 ** 20)}\n`);
    const warnings: string[] = [];
    const runtime = await ToolRuntime.open(ws, {
      ...request('none'),
      home,
      sandbox: { warn: (line) => warnings.push(line) },
    });
    expect(warnings).toContain(
      `The runner's settings file ${big} is hidden from the tools: it is larger than 4 MiB.`,
    );
    expect(runtime.sandbox?.config.hidden).toContain(big);
    await runtime.close();
  });

  it('stops the servers, then closes the sandbox and its gate, once', async () => {
    const runtime = await ToolRuntime.open(ws, { ...request('allowlist'), sandbox: {} });
    expect(runtime.sandbox?.network).toBe(runtime.gate);
    const marker = `tool-runtime-${process.pid}`;
    const servers = await runtime.startServers(
      {
        servers: [
          {
            name: 'hostile',
            command: process.execPath,
            args: [HOSTILE, 'stubborn', marker],
            env: {},
            tools: ['fail'],
          },
        ],
        secrets: [],
      },
      { env: childEnv(process.env), timeoutMs: 20_000, warn: () => undefined, snapshot: async () => ws },
    );
    expect(servers.summary).toBe('hostile (starting)');
    await servers.settled;
    expect(servers.summary).toBe('hostile (1 tool)');
    expect(runtime.servers).toBe(servers);
    expect(await processesNamed(marker)).not.toEqual([]);
    await runtime.close();
    await runtime.close();
    expect(await processesNamed(marker)).toEqual([]);
    expect(existsSync(runtime.sandbox!.privateDir)).toBe(false);
  }, 60_000);

  it('closes while a server is still building its sandbox: the server is left out, and nothing is left', async () => {
    const runtime = await ToolRuntime.open(ws, { ...request('none'), sandbox: {} });
    const marker = `tool-runtime-early-${process.pid}`;
    const warnings: string[] = [];
    const servers = await runtime.startServers(
      {
        servers: [
          {
            name: 'early',
            command: process.execPath,
            args: [HOSTILE, 'stubborn', marker],
            env: {},
            tools: ['fail'],
          },
        ],
        secrets: [],
      },
      {
        env: childEnv(process.env),
        timeoutMs: 20_000,
        warn: (line) => warnings.push(line),
        snapshot: async () => ws,
      },
    );
    await runtime.close();
    await servers.settled;
    expect(servers.summary).toBe('early (not available)');
    expect(warnings).toEqual(['MCP server "early" is left out: the run ended before it had started.']);
    expect(existsSync(runtime.sandbox!.privateDir)).toBe(false);
    expect(await processesNamed(marker)).toEqual([]);
  }, 60_000);
});
