// The gated sandbox's bridge on this machine: the only way out of the tools' network namespace leads to a
// Unix socket of ours; the bridge runs as the action's own user without a capability, and goes with the
// sandbox.
import { createServer, type Server } from 'node:net';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openSandbox } from '../../src/sandbox/setup.js';
import { runCommand } from '../../src/sandbox/run-command.js';

const ws = await mkdtemp(path.join(tmpdir(), 'todo-agent-bridge-'));
const sandbox = await openSandbox({ workspace: ws, network: 'gated', forwardedPorts: [15432] });
const bridge = sandbox.bridge!;
const heard: string[] = [];
/** Stands in for the gate's proxy: answers each connection with what it heard, upper-cased. */
const answer = (name: string): Server =>
  createServer((socket) => {
    socket.setEncoding('utf8').once('data', (text: string) => {
      heard.push(`${name}: ${text}`);
      socket.end(text.toUpperCase());
    });
  });
const proxy = answer('proxy');
const forward = answer('forward');
await new Promise<void>((resolve) => proxy.listen(bridge.proxySocket, resolve));
await new Promise<void>((resolve) => forward.listen(bridge.forwardSocket(15432), resolve));

afterAll(async () => {
  sandbox.close();
  await Promise.all([proxy, forward].map((server) => new Promise((resolve) => server.close(resolve))));
  await rm(ws, { recursive: true, force: true });
});

const inSandbox = (command: string) =>
  runCommand(command, { cwd: ws, env: { PATH: '/usr/bin:/bin' }, timeoutMs: 20_000, sandbox });

/** The bridge's process, found by its socket's path on perl's command line. */
async function bridgeStatus(): Promise<string | undefined> {
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const cmdline = await readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '');
    // perl itself (through sudo, sudo's own process holds the same command line).
    if (cmdline.startsWith('perl\0-e\0') && cmdline.includes(bridge.proxySocket))
      return await readFile(`/proc/${entry}/status`, 'utf8');
  }
  return undefined;
}

describe('the bridge', () => {
  it('leads a connection to the proxy’s port on the tools’ loopback, and to a forwarded port, to their sockets', async () => {
    const result = await inSandbox(
      `exec 3<>/dev/tcp/127.0.0.1/${bridge.port}; printf hello >&3; cat <&3; echo; exec 4<>/dev/tcp/127.0.0.1/15432; printf db >&4; cat <&4`,
    );
    expect({ output: result.output, heard }).toEqual({
      output: 'HELLO\nDB',
      heard: ['proxy: hello', 'forward: db'],
    });
  });

  it('runs as the action’s own user, without any capability, and closes with the sandbox', async () => {
    const status = (await bridgeStatus())!;
    expect(/^Uid:\s+(\d+)/m.exec(status)?.[1]).toBe(String(process.getuid?.()));
    expect(/^CapEff:\s+(\w+)/m.exec(status)?.[1]).toBe('0000000000000000');
    expect(/^CapPrm:\s+(\w+)/m.exec(status)?.[1]).toBe('0000000000000000');
    expect(/^NoNewPrivs:\s+(\d)/m.exec(status)?.[1]).toBe('1');
    sandbox.close();
    for (let i = 0; i < 50 && (await bridgeStatus()); i++)
      await new Promise((resolve) => setTimeout(resolve, 100));
    expect([await bridgeStatus(), existsSync(bridge.proxySocket)]).toEqual([undefined, false]);
  });
});
