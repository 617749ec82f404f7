// The gated sandbox's bridge on this machine: the only way out of the tools' network namespace leads to a
// Unix socket of ours; one process of the action's own user, without a capability, moves every connection's
// bytes, keeps the cap on connections at once, and goes with the sandbox.
import { createServer, type Server, type Socket } from 'node:net';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Bridge } from '../../src/sandbox/bridge.js';
import type { Sandbox } from '../../src/sandbox/namespaces.js';
import { openSandbox } from '../../src/sandbox/setup.js';
import { runCommand } from '../../src/sandbox/commands/run-command.js';

const ws = await mkdtemp(path.join(tmpdir(), 'todo-agent-bridge-'));
const sandbox = await openSandbox({ workspace: ws, network: 'gated', forwardedPorts: [15432] });
const bridge = sandbox.bridge!;
const heard: string[] = [];
const held: Socket[] = [];
/**
 * Stands in for the gate's proxy: holds a connection that says `hold`, echoes one that says `echo…` upper-cased
 * for as long as it stays, and answers any other with what it heard, upper-cased, and ends it.
 */
const answer = (name: string): Server =>
  createServer((socket) => {
    socket.setEncoding('utf8').on('data', (text: string) => {
      if (text === 'hold') return void held.push(socket);
      if (text.startsWith('echo')) return void socket.write(text.slice(4).toUpperCase());
      heard.push(`${name}: ${text}`);
      socket.end(text.toUpperCase());
    });
    socket.on('error', () => undefined);
  });
const proxy = answer('proxy');
const forward = answer('forward');
const listen = (server: Server, at: string) =>
  new Promise<void>((resolve) => server.listen(at, () => resolve()));
await listen(proxy, bridge.proxySocket);
await listen(forward, bridge.forwardSocket(15432));

afterAll(async () => {
  sandbox.close();
  for (const socket of held) socket.destroy();
  await Promise.all([proxy, forward].map((server) => new Promise((resolve) => server.close(resolve))));
  await rm(ws, { recursive: true, force: true });
});

const inSandbox = (command: string, within: Sandbox = sandbox) =>
  runCommand(command, { cwd: ws, env: { PATH: '/usr/bin:/bin' }, timeoutMs: 30_000, sandbox: within });

/** The bridge's processes (through sudo, sudo's own holds the same command line), by its socket's path. */
async function bridgeProcesses(socket = bridge.proxySocket): Promise<string[]> {
  const found: string[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const cmdline = await readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '');
    if (cmdline.includes(socket)) found.push(entry);
  }
  return found;
}

/** The status of perl itself, the bridge's process that moves the bytes. */
async function bridgeStatus(): Promise<string | undefined> {
  for (const pid of await bridgeProcesses()) {
    const cmdline = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
    if (cmdline.startsWith('perl\0-e\0')) return await readFile(`/proc/${pid}/status`, 'utf8');
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

  it('moves the bytes of many connections at once with the one process it started as', async () => {
    const idle = (await bridgeProcesses()).sort();
    const connections = 100;
    const command = inSandbox(
      `for i in $(seq ${connections}); do exec {fd}<>/dev/tcp/127.0.0.1/${bridge.port} && printf hold >&$fd; done; cat <&$fd; printf done`,
    );
    for (let i = 0; i < 300 && held.length < connections; i++)
      await new Promise((resolve) => setTimeout(resolve, 100));
    const busy = (await bridgeProcesses()).sort();
    for (const socket of held.splice(0)) socket.end();
    expect({ held: connections, idle: idle.length > 0, busy }).toEqual({
      held: connections,
      idle: true,
      busy: idle,
    });
    expect((await command).output).toBe('done');
  });

  it('keeps apart the bytes of connections that arrive at once', async () => {
    const client = [
      "const net = require('node:net');",
      'let left = 64, right = 0;',
      'for (let i = 0; i < 64; i++) {',
      `  const socket = net.connect(${bridge.port}, '127.0.0.1', () => socket.write('echoc' + i));`,
      "  socket.setEncoding('utf8').once('data', (text) => {",
      "    if (text === 'C' + i) right++;",
      '    socket.destroy();',
      '    if (--left === 0) console.log(right);',
      '  });',
      '}',
    ].join('\n');
    const result = await inSandbox(`node -e "${client.replace(/"/g, '\\"')}"`);
    expect(result.output.trim()).toBe('64');
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

describe('the cap on connections at once', () => {
  it('refuses one past the cap before it reaches the proxy, and makes room by the oldest idle connection, never a forwarded port’s', async () => {
    const own = await openSandbox({ workspace: ws, network: 'none' });
    const capped = await Bridge.open(own, [15433], { connections: 2, idleSeconds: 2 });
    const capProxy = answer('capped proxy');
    const capForward = answer('capped forward');
    await listen(capProxy, capped.proxySocket);
    await listen(capForward, capped.forwardSocket(15433));
    const refused: Array<[number, number]> = [];
    capped.onRefused((port, cap) => refused.push([port, cap]));
    const tcp = (fd: number, port: number) => `exec ${fd}<>/dev/tcp/127.0.0.1/${port}`;
    try {
      // A (the forwarded port) and B fill the cap; C is refused; once both rested 2 s, D takes B's place.
      const result = await inSandbox(
        [
          `${tcp(3, 15433)}; printf echoa >&3; head -c1 <&3`,
          `${tcp(4, capped.port)}; printf echob >&4; head -c1 <&4`,
          `${tcp(5, capped.port)}; head -n1 <&5 | tr -d '\\r'`,
          'sleep 2.5',
          `${tcp(6, capped.port)}; printf echod >&6; head -c1 <&6`,
          'printf echoe >&3; head -c1 <&3',
          'cat <&4; printf " B closed"',
        ].join('\n'),
        own,
      );
      expect({ output: result.output, refused }).toEqual({
        output:
          "ABHTTP/1.1 503 Refused by todo-agent: the run's cap of 2 connections at once is reached\nDE B closed",
        refused: [[capped.port, 2]],
      });
    } finally {
      capped.close();
      own.close();
      await Promise.all(
        [capProxy, capForward].map((server) => new Promise((resolve) => server.close(resolve))),
      );
    }
  });
});
