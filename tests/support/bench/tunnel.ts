// Bench measure 10, its tunnel part: what a new TLS connection through a CONNECT tunnel costs now that the
// proxy reads the ClientHello before it passes any byte on. Each connection is a fresh CONNECT, a TLS
// handshake and a GET to a local HTTPS server, through the proxy on its Unix socket and directly,
// interleaved; and the reading of a real hello (Node's own TLS client's) on its own, in microseconds.
import { createServer } from 'node:https';
import { connect, type Socket } from 'node:net';
import { connect as connectTls } from 'node:tls';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ToolProxy } from '../../../src/network/proxy/proxy.js';
import { readFirstBytes } from '../../../src/network/proxy/tunnel.js';
import { realHello } from '../network/client-hello.js';
import { selfSigned } from '../network/git-https.js';
import { median } from './stats.js';

const HOST = 'tls.bench.todo-agent.test';

export interface TunnelCost {
  connections: number;
  directMs: number;
  tunnelledMs: number;
  addedMs: number;
  /** Reading one ClientHello (readFirstBytes on Node's), microseconds. */
  readHelloUs: number;
}

/** One new TLS connection and a GET, directly or through a new tunnel of the proxy at `proxy`. */
function once(port: number, ca: string, proxy?: string): Promise<number> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const secure = (socket?: Socket) => {
      const tls = connectTls({
        ...(socket ? { socket } : { host: '127.0.0.1', port }),
        servername: HOST,
        ca,
      });
      tls.on('error', reject);
      tls.on('secureConnect', () => {
        tls.end(`GET / HTTP/1.1\r\nHost: ${HOST}\r\nConnection: close\r\n\r\n`);
        tls.resume().on('end', () => resolve(performance.now() - started));
      });
    };
    if (!proxy) return secure();
    const raw = connect(proxy);
    raw.on('error', reject);
    raw.write(`CONNECT ${HOST}:443 HTTP/1.1\r\nHost: ${HOST}:443\r\n\r\n`);
    let answer = '';
    const onData = (chunk: Buffer) => {
      answer += chunk.toString('latin1');
      if (!answer.includes('\r\n\r\n')) return;
      raw.off('data', onData);
      secure(raw);
    };
    raw.on('data', onData);
  });
}

export async function measureTunnelCost(connections: number): Promise<TunnelCost> {
  const dir = await mkdtemp(join(tmpdir(), 'todo-agent-bench-tunnel-'));
  const { key, cert } = await selfSigned(dir, HOST);
  const server = createServer({ key, cert }, (_req, res) => res.end('ok'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  const socket = join(dir, 'proxy.sock');
  const proxy = await ToolProxy.open(socket, {
    decide: async () => ({ routes: [{ address: '127.0.0.1', family: 4, port }] }),
    onRefused: () => undefined,
    limits: { connections: 64, bytes: 2 ** 40 },
  });
  try {
    for (let i = 0; i < 10; i++) await Promise.all([once(port, cert), once(port, cert, socket)]);
    const direct: number[] = [];
    const tunnelled: number[] = [];
    for (let i = 0; i < connections; i++) {
      direct.push(await once(port, cert));
      tunnelled.push(await once(port, cert, socket));
    }
    const hello = await realHello(HOST);
    const reps = 20_000;
    for (let i = 0; i < 1000; i++) readFirstBytes(hello);
    const started = performance.now();
    for (let i = 0; i < reps; i++) readFirstBytes(hello);
    const readHelloUs = ((performance.now() - started) * 1000) / reps;
    const [directMs, tunnelledMs] = [median(direct), median(tunnelled)];
    return { connections, directMs, tunnelledMs, addedMs: tunnelledMs - directMs, readHelloUs };
  } finally {
    proxy.close();
    await new Promise((resolve) => server.close(resolve));
    await rm(dir, { recursive: true, force: true });
  }
}
