// The tools' proxy, outside the sandbox: every connection a tool makes to the proxy's port inside comes here
// over the sandbox's bridge (a Unix socket). It speaks HTTP as a forward proxy does: `CONNECT host:port` opens
// a tunnel (TLS passes through untouched: no certificate of ours), and a plain HTTP request names its host in
// its absolute URI (or its Host header). It asks `decide` where each may go. A tunnel carries the host it was
// allowed for alone: its ClientHello names it (tunnel.ts), or its plain HTTP is read request by request, each
// held to it. A request goes on framed by the proxy (requests.ts), never as raw bytes it did not frame. Bodies
// are passed, never read, kept or logged. A forwarded port (a job's database on the runner's loopback, allowed
// by name) comes on a socket of its own and goes, once allowed, to the one host and port it stands for.
import { connectionCapReason, type SettingNames } from '../../sandbox/limits.js';
import {
  Agent,
  createServer,
  request,
  STATUS_CODES,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { createServer as createNetServer, type Server as NetServer, type Socket } from 'node:net';
import { chmod } from 'node:fs/promises';
import type { Refusal } from '../policy.js';
import {
  inUnits,
  parseAuthority,
  passedHeaders,
  refusalText,
  requestFraming,
  requestTarget,
  type Route,
  type Target,
} from './requests.js';
import {
  HELLO_TIMEOUT_MS,
  helloRefusal,
  otherName,
  reach,
  readFirstBytes,
  splice,
  UNRECOGNIZED_NAME_ALERT,
  type TunnelRefusal,
} from './tunnel.js';

export type { Route, Target };

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
  /** How a refusal's answer names allowed_hosts (the workflow's input, or the CLI's flag). */
  names?: SettingNames;
}

/** A Unix socket that leads to one host and port (a loopback service named in allowed_hosts). */
export interface Forward {
  path: string;
  target: Target;
}

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
  /** Reads the plain HTTP that tunnels carry, each connection held to its tunnel's host. */
  readonly #inside = this.#httpServer();
  readonly #tunnels = new WeakMap<Socket, Target>();

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
    const http = proxy.#httpServer();
    http.on('connection', (socket: Socket) => proxy.#track(socket));
    http.on('connect', (req: IncomingMessage, socket: Socket, head: Buffer) => {
      void proxy.#tunnel(req, socket, head);
    });
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

  /** An HTTP server that reads requests (framed by Node's strict parser) and passes each on as its own. */
  #httpServer(): Server {
    const http = createServer({ requireHostHeader: false, requestTimeout: 0, insecureHTTPParser: false });
    // An idle connection stays until the tool closes it: the bridge closes one only at the cap (a pool's).
    http.keepAliveTimeout = 0;
    http.on('request', (req: IncomingMessage, res: ServerResponse) => {
      void this.#forward(req, res, this.#tunnels.get(req.socket as Socket));
    });
    http.on('upgrade', (_req: IncomingMessage, socket: Socket) =>
      answer(socket, 501, 'the sandbox proxy does not pass plain-HTTP upgrades on; use TLS (wss:, https:)'),
    );
    http.on('clientError', (error: Error & { reason?: string }, socket: Socket) =>
      answer(
        socket,
        400,
        `not an HTTP request the sandbox proxy passes on (${error.reason ?? error.message})`,
      ),
    );
    return http;
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
        refused: { reason: connectionCapReason(limits.connections) },
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
    if (!('routes' in verdict)) return refuse(client, target, verdict, this.#options.names);
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
    this.#hold(client, upstream, target, head);
  }

  /**
   * The tunnel's first bytes, read before any go further: a ClientHello naming the tunnel's host opens the
   * splice, plain HTTP goes to the server for tunnels, anything else gets a TLS alert and is reported. The
   * bytes are read again only once as many are in as the last reading asked for (bounded, and timed).
   */
  #hold(client: Socket, upstream: Socket, tunnel: Target, head: Buffer): void {
    const chunks = head.length > 0 ? [head] : [];
    let have = head.length;
    let wanted = 1;
    const stop = (): void => {
      clearTimeout(timer);
      client.off('data', take).off('close', gone);
    };
    const refuse = (refusal: TunnelRefusal): void => {
      stop();
      this.#options.onRefused({ ...refusal, port: tunnel.port, method: 'CONNECT', at: Date.now() });
      client.end(UNRECOGNIZED_NAME_ALERT);
      upstream.destroy();
    };
    const judge = (): void => {
      if (have < wanted) return;
      const bytes = Buffer.concat(chunks);
      const first = readFirstBytes(bytes);
      if ('more' in first) return void (wanted = first.more);
      if ('problem' in first) return refuse({ host: tunnel.host, reason: first.problem });
      stop();
      if ('http' in first) {
        upstream.destroy();
        client.pause();
        this.#tunnels.set(client, tunnel);
        client.unshift(bytes);
        this.#inside.emit('connection', client);
        return void client.resume();
      }
      const refusal = helloRefusal(tunnel, first.tls);
      if (refusal) return refuse(refusal);
      upstream.write(bytes);
      splice(client, upstream);
    };
    const take = (chunk: Buffer): void => {
      chunks.push(chunk);
      have += chunk.length;
      judge();
    };
    const gone = (): void => {
      stop();
      upstream.destroy();
    };
    const timer = setTimeout(() => {
      if (have === 0) return gone();
      refuse({
        host: tunnel.host,
        reason: `its TLS ClientHello did not come whole within ${HELLO_TIMEOUT_MS / 1000} s`,
      });
    }, HELLO_TIMEOUT_MS);
    client.on('data', take).once('close', gone);
    upstream.once('error', () => client.destroy());
    judge();
  }

  /** A forwarded port: the connection goes to its one target once allowed, or is closed. */
  async #pass(client: Socket, target: Target): Promise<void> {
    const verdict = await this.#verdict(target, 'TCP');
    if (!('routes' in verdict)) return void client.destroy();
    const upstream = await reach(verdict.routes).catch(() => undefined);
    if (!upstream || client.destroyed) return void (upstream ?? client).destroy();
    splice(client, upstream);
  }

  /** A plain request, framed again by the proxy; in a tunnel, only for the tunnel's host. */
  async #forward(req: IncomingMessage, res: ServerResponse, tunnel?: Target): Promise<void> {
    const target = requestTarget(req);
    if ('problem' in target) return plain(res, 400, target.problem);
    const framing = requestFraming(req.rawHeaders);
    if ('problem' in framing) return plain(res, 400, `todo-agent refused the request: ${framing.problem}`);
    const method = req.method ?? 'GET';
    const other = tunnel && otherName(tunnel, target.host);
    if (other) {
      const refused = { host: other.host, port: tunnel.port };
      this.#options.onRefused({ ...refused, reason: other.reason, method, at: Date.now() });
      return plain(res, 403, refusalText(refused, other, this.#options.names));
    }
    const to = tunnel ?? { host: target.host, port: target.port };
    const verdict = await this.#verdict(to, method);
    if ('refused' in verdict) return plain(res, 403, refusalText(to, verdict.refused, this.#options.names));
    if ('failed' in verdict) return plain(res, 502, verdict.failed);
    const route = verdict.routes[0]!;
    const upstream = request({
      host: route.address,
      port: route.port,
      family: route.family,
      method: req.method,
      path: target.path,
      // Origin-form only: a host further on is never asked to proxy in turn.
      // The body framed by the proxy: chunks as chunks, a length as that length, and none as none.
      headers: [
        ...passedHeaders(req.rawHeaders, target.authority),
        ...(framing.body === 'chunked' ? ['Transfer-Encoding', 'chunked'] : []),
      ],
      setHost: false,
      agent: this.#agent,
    });
    upstream.on('response', (answer: IncomingMessage) => {
      res.writeHead(answer.statusCode ?? 502, answer.statusMessage, passedHeaders(answer.rawHeaders));
      answer.pipe(res);
    });
    upstream.on('error', (error: NodeJS.ErrnoException) => {
      if (res.headersSent) return void res.destroy();
      plain(res, 502, `could not reach ${to.host}:${to.port} (${error.code ?? error.message})`);
    });
    res.on('close', () => {
      if (!res.writableFinished) upstream.destroy();
    });
    if (framing.body !== 'none') return void req.pipe(upstream);
    req.resume();
    upstream.end();
  }
}

function refuse(
  client: Socket,
  target: Target,
  verdict: Exclude<Verdict, { routes: readonly Route[] }>,
  names: SettingNames | undefined,
): void {
  if (!('refused' in verdict)) return answer(client, 502, verdict.failed);
  // The reason goes in the status line too: many clients show that line and never the body.
  const phrase = `Refused by todo-agent: ${verdict.refused.reason}`
    .replace(/[^\x20-\x7e]/g, '?')
    .slice(0, 200);
  answer(client, 403, refusalText(target, verdict.refused, names), phrase);
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
    // After a request the proxy would not read, nothing more on the connection is read as one.
    ...(status === 400 ? { Connection: 'close' } : {}),
  });
  res.end(body);
}
