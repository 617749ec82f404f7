// The tools' proxy on a Unix socket, as the sandbox's bridge reaches it, with real clients: raw CONNECTs,
// node:http requests, TLS through tunnels, undici (Node's fetch) through its proxy agent, and the upstream
// servers they lead to on 127.0.0.1, one behind a tap that logs every byte it is sent.
import { createServer as createHttpServer, request, type IncomingHttpHeaders } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { connect, createServer as createTcpServer, type Socket } from 'node:net';
import { connect as connectTls } from 'node:tls';
import { ProxyAgent, request as undiciRequest } from 'undici';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { handshake, records, sni } from '../../support/network/client-hello.js';
import { selfSigned } from '../../support/network/git-https.js';
import {
  ToolProxy,
  type ProxyLimits,
  type RefusedRequest,
  type Target,
  type Verdict,
} from '../../../src/network/proxy/proxy.js';

const dir = await mkdtemp(path.join(tmpdir(), 'todo-agent-proxy-'));

const seen: Array<{ method?: string; url?: string; headers: IncomingHttpHeaders; body: string }> = [];
const web = createHttpServer((req, res) => {
  let body = '';
  req.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
  req.on('end', () => {
    seen.push({ method: req.method, url: req.url, headers: req.headers, body });
    res.writeHead(201, 'Made', { 'X-Upstream': 'yes', Connection: 'close, X-Hop', 'X-Hop': 'gone' });
    res.end('upstream says hi');
  });
});
const echo = createTcpServer({ allowHalfOpen: true }, (socket) => socket.pipe(socket));
/** Every byte sent to the web server through the tap, as it came. */
let tapped = '';
const tap = createTcpServer((socket) => {
  const inner = connect((web.address() as { port: number }).port, '127.0.0.1');
  socket.on('data', (chunk: Buffer) => (tapped += chunk.toString('latin1')));
  socket.pipe(inner).pipe(socket);
  inner.on('error', () => socket.destroy());
  socket.on('error', () => inner.destroy());
});
const certDir = await mkdtemp(path.join(tmpdir(), 'todo-agent-proxy-cert-'));
const { key, cert } = await selfSigned(certDir, 'tls.test');
/** The bytes each TLS connection sent the TLS server (0: it was handed nothing). */
const tlsBytes: number[] = [];
const tls = createHttpsServer({ key, cert }, (_req, res) => res.end('tls says hi'));
tls.on('connection', (socket: Socket) => socket.on('close', () => tlsBytes.push(socket.bytesRead)));
await Promise.all(
  [web, echo, tap, tls].map(
    (server) => new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve)),
  ),
);
const portOf = (server: { address(): unknown }) => (server.address() as { port: number }).port;
const [webPort, echoPort, tapPort, tlsPort] = [web, echo, tap, tls].map(portOf) as [
  number,
  number,
  number,
  number,
];

/** The decisions, as the gate would make them: some hosts lead to the servers, one is refused, one unknown. */
async function decide({ host }: Target): Promise<Verdict> {
  const to = (port: number): Verdict => ({ routes: [{ address: '127.0.0.1', family: 4, port }] });
  if (host === 'web.test') return to(webPort);
  if (host === 'tap.test') return to(tapPort);
  if (host === 'tls.test') return to(tlsPort);
  if (host === 'echo.test' || host === 'svc.test') return to(echoPort);
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
  await Promise.all([web, echo, tap, tls].map((server) => new Promise((resolve) => server.close(resolve))));
  await rm(dir, { recursive: true, force: true });
  await rm(certDir, { recursive: true, force: true });
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
    const hello = records(handshake([sni('echo.test')])).toString('latin1');
    const client = raw(main.socketPath);
    client.socket.write(`CONNECT echo.test:443 HTTP/1.1\r\nHost: echo.test:443\r\n\r\n${hello}`, 'latin1');
    const established = 'HTTP/1.1 200 Connection Established\r\n\r\n';
    expect(await client.read(/echo\.test$/)).toBe(`${established}${hello}`);
    client.socket.write('pong');
    expect(await client.read(/pong$/)).toBe(`${established}${hello}pong`);
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

  it('keeps an idle keep-alive connection open (only the bridge closes idle ones, at its cap)', async () => {
    const client = raw(main.socketPath);
    client.socket.write('GET http://web.test/ HTTP/1.1\r\nHost: web.test\r\n\r\n');
    await client.read(/upstream says hi/);
    // Node's HTTP server would close it after 5 s of rest by default (and a second's grace).
    await new Promise((resolve) => setTimeout(resolve, 6_500));
    client.socket.write('GET http://web.test/again HTTP/1.1\r\nHost: web.test\r\n\r\n');
    const both = await client.read(/(upstream says hi[\s\S]*){2}/);
    expect(both.match(/^HTTP\/1\.1 201 Made/gm)).toHaveLength(2);
    client.socket.destroy();
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

/** A raw connection through a CONNECT tunnel the proxy opened: the socket once the 200 came. */
async function tunnelTo(authority: string): Promise<Socket> {
  const client = raw(main.socketPath);
  client.socket.write(`CONNECT ${authority} HTTP/1.1\r\nHost: ${authority}\r\n\r\n`);
  expect(await client.read(/\r\n\r\n/)).toBe('HTTP/1.1 200 Connection Established\r\n\r\n');
  client.socket.removeAllListeners('data');
  return client.socket;
}

/** TLS through a tunnel to tls.test, naming `servername` ('' for none): the answer to GET /, or the error. */
async function tlsThrough(servername: string): Promise<string> {
  const socket = await tunnelTo('tls.test:443');
  return await new Promise((resolve) => {
    const secure = connectTls({ socket, servername, ca: cert, checkServerIdentity: () => undefined });
    secure.on('error', (error: NodeJS.ErrnoException) => resolve(`error: ${error.code ?? error.message}`));
    secure.on('secureConnect', () => {
      let text = '';
      secure.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
      secure.on('end', () => resolve(text.split('\r\n\r\n')[1] ?? text));
      secure.write('GET / HTTP/1.1\r\nHost: tls.test\r\nConnection: close\r\n\r\n');
    });
  });
}

describe('a tunnel holds to the host it was allowed for', () => {
  it('passes TLS whose ClientHello names that host, and refuses another name or none, reporting it', async () => {
    expect(await tlsThrough('tls.test')).toBe('tls says hi');
    while (tlsBytes.length < 1) await new Promise((resolve) => setTimeout(resolve, 10));
    const before = tlsBytes.length;
    expect(await tlsThrough('other.test')).toBe('error: ERR_SSL_TLSV1_UNRECOGNIZED_NAME');
    expect(main.refused.at(-1)).toEqual({
      host: 'other.test',
      port: 443,
      method: 'CONNECT',
      reason: 'other.test is not tls.test, the host this tunnel was allowed for',
      at: expect.any(Number),
    });
    expect(await tlsThrough('')).toBe('error: ERR_SSL_TLSV1_UNRECOGNIZED_NAME');
    expect(main.refused.at(-1)?.reason).toBe(
      'its TLS ClientHello names no server (SNI); a tunnel to tls.test must name it',
    );
    // The TLS server was handed not a byte of either refused hello.
    while (tlsBytes.length < before + 2) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(tlsBytes.slice(before)).toEqual([0, 0]);
  });

  it('reads a ClientHello spread over records and sent a byte at a time, then passes it whole', async () => {
    const socket = await tunnelTo('echo.test:443');
    const hello = records(handshake([sni('ECHO.test.')]), 40);
    // Every byte of it is below 0x80: the connection's text is its bytes.
    let echoed = '';
    socket.on('data', (chunk: string) => (echoed += chunk));
    socket.setNoDelay(true);
    for (const byte of hello) {
      socket.write(Buffer.from([byte]));
      await new Promise((resolve) => setImmediate(resolve));
    }
    while (echoed.length < hello.length) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(echoed).toBe(hello.toString('latin1'));
    socket.destroy();
  });

  it('reads plain HTTP through a tunnel request by request, each held to that host', async () => {
    const before = seen.length;
    const socket = await tunnelTo('web.test:80');
    let text = '';
    socket.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
    socket.write('GET /one HTTP/1.1\r\nHost: web.test\r\n\r\n');
    while (!text.includes('upstream says hi')) await new Promise((resolve) => setTimeout(resolve, 10));
    socket.write('GET /two HTTP/1.1\r\nHost: other.test\r\n\r\n');
    while (!text.includes('403')) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(text).toContain(
      'todo-agent refused other.test:80: other.test is not web.test, the host this tunnel was allowed for.',
    );
    expect(seen.slice(before).map((request) => request.url)).toEqual(['/one']);
    expect(main.refused.at(-1)).toMatchObject({ host: 'other.test', port: 80, method: 'GET' });
    socket.destroy();
  });

  it('serves undici (Node’s fetch), which tunnels plain HTTP through CONNECT, and refuses its other Host', async () => {
    const relay = createTcpServer((socket) => socket.pipe(connect(main.socketPath)).pipe(socket));
    await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
    const dispatcher = new ProxyAgent(`http://127.0.0.1:${portOf(relay)}`);
    try {
      const before = seen.length;
      const ok = await undiciRequest('http://web.test/via-undici?q=1', { dispatcher });
      expect([ok.statusCode, await ok.body.text()]).toEqual([201, 'upstream says hi']);
      expect(seen.slice(before).map((request) => [request.url, request.headers.host])).toEqual([
        ['/via-undici?q=1', 'web.test'],
      ]);
      const other = await undiciRequest('http://web.test/', { dispatcher, headers: { host: 'other.test' } });
      expect([other.statusCode, (await other.body.text()).trim()]).toEqual([
        403,
        'todo-agent refused other.test:80: other.test is not web.test, the host this tunnel was allowed for.',
      ]);
      expect(seen.length).toBe(before + 1);
    } finally {
      await dispatcher.close();
      relay.close();
    }
  });
});

/** Sends `text` on a raw connection to the proxy and reads until the proxy closes it (or `until`). */
async function rawExchange(text: string, until = /(?!)/): Promise<string> {
  const client = raw(main.socketPath);
  client.socket.write(text);
  const answer = await client.read(until);
  client.socket.destroy();
  return answer;
}

describe('no request smuggling on the plain-HTTP path', () => {
  const smuggled = 'GET /smuggled HTTP/1.1\r\nHost: evil.test\r\n\r\n';

  it('frames a chunked body itself, a GET’s too: the upstream reads one request, its body as data', async () => {
    tapped = '';
    const before = seen.length;
    const chunk = `${smuggled.length.toString(16)}\r\n${smuggled}\r\n0\r\n\r\n`;
    const answer = await rawExchange(
      `GET http://tap.test/a HTTP/1.1\r\nHost: tap.test\r\nTransfer-Encoding: chunked\r\n\r\n${chunk}`,
      /upstream says hi/,
    );
    expect(answer).toMatch(/^HTTP\/1\.1 201 Made/);
    expect(seen.slice(before).map((request) => [request.method, request.url, request.body])).toEqual([
      ['GET', '/a', smuggled],
    ]);
    expect(tapped).toMatch(/^GET \/a HTTP\/1\.1\r\n/);
    expect(tapped.toLowerCase()).toContain('transfer-encoding: chunked\r\n');
  });

  it('passes a POST’s Content-Length body as exactly that many bytes', async () => {
    const before = seen.length;
    await rawExchange(
      'POST http://tap.test/b HTTP/1.1\r\nHost: tap.test\r\nContent-Length: 5\r\n\r\nhello',
      /says hi/,
    );
    expect(seen.slice(before).map((request) => [request.url, request.body])).toEqual([['/b', 'hello']]);
  });

  it.each([
    ['CL.TE', 'Content-Length: 6\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\nG'],
    ['TE.CL', 'Transfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n8\r\nSMUGGLED\r\n0\r\n\r\n'],
    ['TE.TE: xchunked', 'Transfer-Encoding: xchunked\r\nContent-Length: 4\r\n\r\n1234'],
    ['TE.TE: two codings', 'Transfer-Encoding: chunked\r\nTransfer-Encoding: x\r\n\r\n0\r\n\r\n'],
    ['TE.TE: identity first', 'Transfer-Encoding: identity, chunked\r\n\r\n0\r\n\r\n'],
    ['TE.TE: a space before the colon', 'Transfer-Encoding : chunked\r\n\r\n0\r\n\r\n'],
    ['TE.TE: a vertical tab', 'Transfer-Encoding: \x0bchunked\r\n\r\n0\r\n\r\n'],
    ['TE.TE: folded onto the next line', 'Transfer-Encoding:\r\n chunked\r\n\r\n0\r\n\r\n'],
    ['an obs-fold', 'X-A: b\r\n c\r\n\r\n'],
    ['a bare LF in a header', 'X-A: b\nX-B: c\r\n\r\n'],
    ['a bare CR in a header', 'X-A: b\rc\r\n\r\n'],
    ['two lengths', 'Content-Length: 1\r\nContent-Length: 2\r\n\r\nab'],
    ['two Host headers', 'Host: evil.test\r\n\r\n'],
  ])('answers %s with 400 and closes: the upstream reads nothing of it', async (_case, rest) => {
    tapped = '';
    const before = seen.length;
    const answer = await rawExchange(
      `POST http://tap.test/c HTTP/1.1\r\nHost: tap.test\r\n${rest}${smuggled}`,
    );
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    expect(answer.match(/HTTP\/1\.1/g)).toHaveLength(1); // one answer, then the connection closed
    expect(tapped).toBe('');
    expect(seen.length).toBe(before);
  });
});
