// The tools' proxy, outside the sandbox: every connection a tool makes to the proxy's port inside comes here
// over the sandbox's bridge (a Unix socket). It speaks HTTP as a forward proxy does: `CONNECT host:port` opens
// a tunnel (TLS passes through untouched: no certificate of ours), and a plain HTTP request names its host in
// its absolute URI (or its Host header). It asks `decide` where each may go, then only pipes bytes: no body is
// read, kept or logged. A forwarded port (a job's database on the runner's loopback, allowed by name) comes on
// a socket of its own and goes, once allowed, to the one host and port it stands for.
import {
  Agent,
  createServer,
  request,
  STATUS_CODES,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { connect, createServer as createNetServer, type Server as NetServer, type Socket } from 'node:net';
import { chmod } from 'node:fs/promises';
import type { Refusal } from './policy.js';

export interface Target {
  host: string;
  port: number;
}

export interface Route {
  address: string;
  family: 4 | 6;
  port: number;
}

/** Where a request may go (addresses to try in turn), why not (a refusal), or why it cannot (a failed lookup). */
export type Verdict = { routes: readonly Route[] } | { refused: Refusal } | { failed: string };

/** A refused request as the run keeps it: never a path, a header or a body. */
export interface RefusedRequest extends Target, Refusal {
  /** `CONNECT`, the HTTP method, or `TCP` for a forwarded port. */
  method: string;
  at: number;
}

export interface ProxyLimits {
  /** Connections from the tools open at once. */
  connections: number;
  /** Bytes through the proxy in the run, both ways. */
  bytes: number;
}

export interface ProxyOptions {
  decide: (target: Target) => Promise<Verdict>;
  onRefused: (refused: RefusedRequest) => void;
  limits: ProxyLimits;
}

/** A Unix socket that leads to one host and port (a loopback service named in allowed_hosts). */
export interface Forward {
  path: string;
  target: Target;
}

/** Headers that belong to one hop (RFC 9110, 7.6.1), and the proxy's own: never passed on. */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authorization',
  'proxy-authenticate',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

/** How long an upstream host may take to accept a connection. */
const CONNECT_TIMEOUT_MS = 30_000;
/** How often the bytes through the proxy are summed (on the sockets' own counters: no work per chunk). */
const BYTES_SAMPLE_MS = 1_000;

export class ToolProxy {
  readonly #options: ProxyOptions;
  readonly #servers: Array<Server | NetServer> = [];
  readonly #live = new Set<Socket>();
  /** Bytes of the connections already closed. */
  #spent = 0;
  #overBytes = false;
  /** Upstream connections for plain HTTP, kept alive and pooled by address and port. */
  readonly #agent = new Agent({ keepAlive: true, scheduling: 'lifo' });
  readonly #sampler: NodeJS.Timeout;

  private constructor(options: ProxyOptions) {
    this.#options = options;
    this.#sampler = setInterval(() => this.#checkBytes(), BYTES_SAMPLE_MS).unref();
  }

  /** Listens on `path` (the bridge's socket) and on each forward's socket; resolves once they all listen. */
  static async open(
    path: string,
    options: ProxyOptions,
    forwards: readonly Forward[] = [],
  ): Promise<ToolProxy> {
    const proxy = new ToolProxy(options);
    const http = createServer({ requireHostHeader: false, requestTimeout: 0 });
    http.on('connection', (socket: Socket) => proxy.#track(socket));
    http.on('connect', (req: IncomingMessage, socket: Socket, head: Buffer) => {
      void proxy.#tunnel(req, socket, head);
    });
    http.on('request', (req: IncomingMessage, res: ServerResponse) => void proxy.#forward(req, res));
    http.on('upgrade', (_req: IncomingMessage, socket: Socket) =>
      answer(socket, 501, 'the sandbox proxy does not pass plain-HTTP upgrades on; use TLS (wss:, https:)'),
    );
    http.on('clientError', (_error, socket: Socket) => answer(socket, 400, 'not an HTTP request'));
    await proxy.#listen(http, path);
    for (const forward of forwards) {
      const server = createNetServer({ allowHalfOpen: true }, (socket) => {
        proxy.#track(socket);
        void proxy.#pass(socket, forward.target);
      });
      await proxy.#listen(server, forward.path);
    }
    return proxy;
  }

  /** Bytes through the proxy so far, both ways. */
  get bytes(): number {
    let total = this.#spent;
    for (const socket of this.#live) total += socket.bytesRead + socket.bytesWritten;
    return total;
  }

  close(): void {
    clearInterval(this.#sampler);
    for (const server of this.#servers) server.close();
    for (const socket of this.#live) socket.destroy();
    this.#agent.destroy();
  }

  async #listen(server: Server | NetServer, path: string): Promise<void> {
    this.#servers.push(server);
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(path, () => resolve());
    });
    // The bridge may run as another user than ours; the directory around the socket keeps everyone else out.
    await chmod(path, 0o666);
  }

  #track(socket: Socket): void {
    this.#live.add(socket);
    socket.once('close', () => {
      this.#spent += socket.bytesRead + socket.bytesWritten;
      this.#live.delete(socket);
    });
  }

  #checkBytes(): void {
    if (this.#overBytes || this.bytes <= this.#options.limits.bytes) return;
    this.#overBytes = true;
    for (const socket of this.#live) socket.destroy();
  }

  /** The verdict on a request, the run's caps first; a refusal is reported before it is answered. */
  async #verdict(target: Target, method: string): Promise<Verdict> {
    const { limits } = this.#options;
    let verdict: Verdict;
    if (this.#live.size > limits.connections)
      verdict = {
        refused: { reason: `the run's cap of ${limits.connections} connections at once is reached` },
      };
    else if (this.#overBytes || this.bytes > limits.bytes) {
      this.#overBytes = true;
      verdict = {
        refused: { reason: `the run's cap of ${inUnits(limits.bytes)} through the proxy is reached` },
      };
    } else
      verdict = await this.#options
        .decide(target)
        .catch((error: unknown) => ({ failed: `the network gate could not decide (${String(error)})` }));
    if ('refused' in verdict)
      this.#options.onRefused({ ...target, ...verdict.refused, method, at: Date.now() });
    return verdict;
  }

  async #tunnel(req: IncomingMessage, client: Socket, head: Buffer): Promise<void> {
    const target = parseAuthority(req.url ?? '');
    if (!target) return answer(client, 400, 'CONNECT takes host:port');
    const verdict = await this.#verdict(target, 'CONNECT');
    if (!('routes' in verdict)) return refuse(client, target, verdict);
    const upstream = await reach(verdict.routes).catch((error: NodeJS.ErrnoException) => {
      answer(
        client,
        502,
        `could not connect to ${target.host}:${target.port} (${error.code ?? error.message})`,
      );
      return undefined;
    });
    if (!upstream) return;
    if (client.destroyed) return void upstream.destroy();
    client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
    if (head.length > 0) upstream.write(head);
    splice(client, upstream);
  }

  /** A forwarded port: the connection goes to its one target once allowed, or is closed. */
  async #pass(client: Socket, target: Target): Promise<void> {
    const verdict = await this.#verdict(target, 'TCP');
    if (!('routes' in verdict)) return void client.destroy();
    const upstream = await reach(verdict.routes).catch(() => undefined);
    if (!upstream || client.destroyed) return void (upstream ?? client).destroy();
    splice(client, upstream);
  }

  async #forward(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const target = requestTarget(req);
    if ('problem' in target) return plain(res, 400, target.problem);
    const verdict = await this.#verdict({ host: target.host, port: target.port }, req.method ?? 'GET');
    if ('refused' in verdict) return plain(res, 403, refusalText(target, verdict.refused));
    if ('failed' in verdict) return plain(res, 502, verdict.failed);
    const route = verdict.routes[0]!;
    const upstream = request({
      host: route.address,
      port: route.port,
      family: route.family,
      method: req.method,
      path: target.path,
      // Origin-form only: a host further on is never asked to proxy in turn.
      headers: passedHeaders(req.rawHeaders, target.authority),
      setHost: false,
      agent: this.#agent,
    });
    upstream.on('response', (answer: IncomingMessage) => {
      res.writeHead(answer.statusCode ?? 502, answer.statusMessage, passedHeaders(answer.rawHeaders));
      answer.pipe(res);
    });
    upstream.on('error', (error: NodeJS.ErrnoException) => {
      if (res.headersSent) return void res.destroy();
      plain(res, 502, `could not reach ${target.host}:${target.port} (${error.code ?? error.message})`);
    });
    res.on('close', () => {
      if (!res.writableFinished) upstream.destroy();
    });
    req.pipe(upstream);
  }
}

/** What a host may hold before it is decided on (and named in a refusal): a name's or an address's characters. */
const HOST_CHARACTERS = /^[\w.-]{1,253}$|^[0-9a-f:.]{2,45}$/i;

/** `host:port` (`[v6]:port`) of a CONNECT request; undefined without a port or with no host in it. */
export function parseAuthority(authority: string): Target | undefined {
  const match = /^(\[[^\]]+\]|[^:[\]]+):(\d{1,5})$/.exec(authority.trim());
  if (!match) return undefined;
  const host = match[1]!.replace(/^\[|\]$/g, '');
  const port = Number(match[2]);
  return port >= 1 && port <= 65_535 && HOST_CHARACTERS.test(host) ? { host, port } : undefined;
}

/** The host, port and path a plain HTTP request asks for: its absolute URI, else its Host header. */
export function requestTarget(
  req: Pick<IncomingMessage, 'url' | 'headers'>,
): (Target & { path: string; authority: string }) | { problem: string } {
  const raw = req.url ?? '';
  let url: URL;
  try {
    url = /^[a-z][a-z0-9+.-]*:/i.test(raw) ? new URL(raw) : new URL(raw, `http://${req.headers.host ?? ''}`);
  } catch {
    return {
      problem: 'the sandbox proxy needs the host: an absolute URI (http://host/path) or a Host header',
    };
  }
  if (url.protocol === 'https:') return { problem: 'https goes through CONNECT, not as a plain request' };
  if (url.protocol !== 'http:')
    return { problem: `the sandbox proxy passes http: and CONNECT on, not ${url.protocol}` };
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (!HOST_CHARACTERS.test(host)) return { problem: 'the request names no host' };
  return {
    host,
    port: Number(url.port || 80),
    path: `${url.pathname}${url.search}`,
    authority: url.host,
  };
}

/** The headers to pass on: without hop-by-hop ones (nor those `Connection` names), Host set to `authority`. */
export function passedHeaders(raw: readonly string[], authority?: string): string[] {
  const named = new Set<string>();
  for (let i = 0; i < raw.length; i += 2)
    if (raw[i]!.toLowerCase() === 'connection')
      for (const name of raw[i + 1]!.split(',')) named.add(name.trim().toLowerCase());
  const kept: string[] = authority === undefined ? [] : ['Host', authority];
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!.toLowerCase();
    if (HOP_BY_HOP.has(name) || named.has(name) || (authority !== undefined && name === 'host')) continue;
    kept.push(raw[i]!, raw[i + 1]!);
  }
  return kept;
}

/** Connects to the first route that answers. */
async function reach(routes: readonly Route[]): Promise<Socket> {
  let last: unknown = new Error('no address');
  for (const route of routes) {
    try {
      return await new Promise<Socket>((resolve, reject) => {
        const socket = connect({
          host: route.address,
          port: route.port,
          family: route.family,
          allowHalfOpen: true,
        });
        socket.setNoDelay(true);
        socket.setTimeout(CONNECT_TIMEOUT_MS, () =>
          socket.destroy(Object.assign(new Error('timed out'), { code: 'ETIMEDOUT' })),
        );
        socket.once('connect', () => {
          socket.setTimeout(0);
          socket.removeListener('error', reject);
          resolve(socket);
        });
        socket.once('error', reject);
      });
    } catch (error) {
      last = error;
    }
  }
  throw last;
}

/** Pipes both ways; either side closing or failing ends the other. */
function splice(one: Socket, other: Socket): void {
  one.pipe(other);
  other.pipe(one);
  const end = (): void => {
    one.destroy();
    other.destroy();
  };
  for (const socket of [one, other]) {
    socket.once('error', end);
    socket.once('close', end);
  }
}

/** The answer's text: what was refused, why, and what would allow it. */
export function refusalText(target: Target, refusal: Refusal): string {
  const allow = refusal.allow
    ? ` To allow it, add ${refusal.allow} to the workflow's allowed_hosts input.`
    : '';
  return `todo-agent refused ${target.host}:${target.port}: ${refusal.reason}.${allow}`;
}

function refuse(
  client: Socket,
  target: Target,
  verdict: Exclude<Verdict, { routes: readonly Route[] }>,
): void {
  if (!('refused' in verdict)) return answer(client, 502, verdict.failed);
  // The reason goes in the status line too: many clients show that line and never the body.
  const phrase = `Refused by todo-agent: ${verdict.refused.reason}`
    .replace(/[^\x20-\x7e]/g, '?')
    .slice(0, 200);
  answer(client, 403, refusalText(target, verdict.refused), phrase);
}

/** A whole answer on a raw socket (a CONNECT's), the connection closed after it. */
function answer(socket: Socket, status: number, text: string, phrase = STATUS_CODES[status] ?? ''): void {
  if (socket.destroyed) return;
  const body = Buffer.from(`${text}\n`);
  socket.end(
    `HTTP/1.1 ${status} ${phrase}\r\nContent-Type: text/plain; charset=utf-8\r\n` +
      `Content-Length: ${body.length}\r\nConnection: close\r\n\r\n${body.toString()}`,
  );
}

/** A plain-text answer to a plain HTTP request. */
function plain(res: ServerResponse, status: number, text: string): void {
  if (res.headersSent) return void res.destroy();
  const body = `${text}\n`;
  res.writeHead(status, {
    'Content-Type': 'text/plain; charset=utf-8',
    'Content-Length': Buffer.byteLength(body),
  });
  res.end(body);
}

/** A byte count in the largest binary unit it fills. */
function inUnits(bytes: number): string {
  const [unit, size] = (
    [
      ['GiB', 2 ** 30],
      ['MiB', 2 ** 20],
      ['KiB', 2 ** 10],
    ] as const
  ).find(([, size]) => bytes >= size) ?? ['bytes', 1];
  return `${Math.round((bytes / size) * 10) / 10} ${unit}`;
}
