// The emulator's HTTP side: the server on 127.0.0.1, auth, the OpenAPI check, injected failures,
// rate-limit headers, conditional GETs, and the record of every call.
import { createHash } from 'node:crypto';
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readBody } from '../http-body.js';
import { answerGraphql } from './graphql.js';
import { checkRequest } from './openapi.js';
import type { OperationMatch } from './openapi.js';
import { DOCS, HttpError, notFound } from './replies.js';
import type { HandlerTable, Reply, Request } from './replies.js';
import type { Emu } from './state.js';
import type { InjectedResponse, RecordedCall } from './types.js';
import { signedDownload, type RawReply } from './attachments.js';
import { movedIssueAnswer } from './issues.js';

export interface EmulatorServer {
  url: string;
  calls: RecordedCall[];
  /** Conditional GETs answered 304 so far. */
  readonly notModified: number;
  failNext(match: { method?: string; path: RegExp }, response: InjectedResponse, times?: number): void;
  /** Holds the answer to the next matching request until the returned function is called. */
  holdNext(match: { method?: string; path: RegExp }): () => void;
  close(): Promise<void>;
}

interface Hold {
  method?: string;
  path: RegExp;
  released: Promise<void>;
  release: () => void;
}

interface Injection {
  method?: string;
  path: RegExp;
  response: InjectedResponse;
  left: number;
}

/** The weak ETag of a representation made from `validator`, the same for a GET and a write's answer. */
export function etagOf(validator: string): string {
  return `W/"${createHash('sha256').update(validator).digest('hex')}"`;
}

/**
 * A GET answer with a weak ETag over `validator` (the text the answer is made from): an empty 304 when
 * the request's If-None-Match matches it, as GitHub answers (without counting it against the rate limit).
 */
export function conditionalGet(request: Request, validator: string, json: () => unknown): Reply {
  const etag = etagOf(validator);
  if (request.headers['if-none-match'] === etag) return { status: 304, headers: { etag } };
  return { status: 200, body: json(), headers: { etag } };
}

const errorReply = (status: number, message: string): Reply => ({
  status,
  body: { message, documentation_url: DOCS, status: String(status) },
});

export async function startServer(emu: Emu, handlers: HandlerTable): Promise<EmulatorServer> {
  const { violations } = emu;
  const calls: RecordedCall[] = [];
  const injected: Injection[] = [];
  const holds: Hold[] = [];
  /** The hold that matches the request, used up by it. */
  const holdFor = (method: string, path: string): Promise<void> | undefined => {
    const hold = holds.find((h) => (!h.method || h.method.toUpperCase() === method) && h.path.test(path));
    if (!hold) return undefined;
    holds.splice(holds.indexOf(hold), 1);
    return hold.released;
  };
  let notModified = 0;
  let remaining = 5000;

  /** A 401 reply when a token is configured and the request does not present it. */
  const authFailure = (req: IncomingMessage, url: URL): Reply | undefined => {
    const { token } = emu.options;
    if (token === undefined) return undefined;
    const auth = req.headers.authorization;
    if (!auth) {
      violations.push(`unauthenticated: ${req.method} ${url.pathname}`);
      return errorReply(401, 'Requires authentication');
    }
    const presented = auth.replace(/^(token|bearer)\s+/i, '');
    if (presented !== auth && presented === token) return undefined;
    violations.push(`bad credentials: ${req.method} ${url.pathname}`);
    return errorReply(401, 'Bad credentials');
  };

  /** The first injected failure that matches the request, used up by one. */
  const injection = (method: string, url: URL): Reply | undefined => {
    const rule = injected.find(
      (r) => (!r.method || r.method.toUpperCase() === method) && r.path.test(url.pathname),
    );
    if (!rule) return undefined;
    if (--rule.left <= 0) injected.splice(injected.indexOf(rule), 1);
    const { status, headers, body } = rule.response;
    return { status, body: body ?? { message: 'Injected failure' }, ...(headers ? { headers } : {}) };
  };

  /** Checks between auth and the handler: the OpenAPI description, injected failures, the repo. */
  const preflight = (method: string, url: URL, body: unknown, call: RecordedCall): Reply | OperationMatch => {
    const check = checkRequest(method, url.pathname + url.search, body);
    if (check.match) call.operationId = check.match.operationId;
    for (const p of check.problems) violations.push(`${method} ${url.pathname}: ${p.message}`);
    const injectedReply = injection(method, url);
    if (injectedReply) return injectedReply;
    if (!check.match || check.problems.some((p) => p.kind === 'path')) throw notFound();
    if (check.problems.length) {
      const details = check.problems.map((p) => p.message).join('\n');
      return errorReply(422, `Invalid request.\n\n${details}`);
    }
    const { owner, repo } = check.match.params;
    if (owner !== undefined && repo !== undefined) {
      const sameRepo =
        owner.toLowerCase() === emu.owner.toLowerCase() && repo.toLowerCase() === emu.repo.toLowerCase();
      if (!sameRepo) throw notFound();
    }
    return check.match;
  };

  const dispatch = async (
    req: IncomingMessage,
    url: URL,
    raw: string,
    call: RecordedCall,
  ): Promise<Reply> => {
    const denied = authFailure(req, url);
    if (denied) return denied;
    const method = req.method ?? 'GET';
    let body: unknown;
    if (raw.trim() !== '') {
      try {
        body = JSON.parse(raw);
        call.body = body;
      } catch {
        call.body = raw;
        violations.push(`${method} ${url.pathname}: body is not JSON`);
        return errorReply(400, 'Problems parsing JSON');
      }
    }
    // GraphQL is not in the REST description: its own module checks it against GitHub's GraphQL schema.
    if (method === 'POST' && url.pathname === '/graphql') {
      call.operationId = 'graphql';
      return injection(method, url) ?? answerGraphql(emu, body);
    }
    const moved = movedIssueAnswer(emu, method, url);
    if (moved) return moved;
    const outcome = preflight(method, url, body, call);
    if (!('operationId' in outcome)) return outcome;
    const handler = handlers[outcome.operationId];
    if (!handler) {
      violations.push(`not emulated: ${method} ${url.pathname} (${outcome.operationId})`);
      return { status: 501, body: { message: `Not emulated: ${outcome.operationId}` } };
    }
    return handler({ method, headers: req.headers, url, body, match: outcome });
  };

  const send = (res: ServerResponse, reply: Reply): void => {
    if (reply.status === 304) notModified++;
    else remaining = Math.max(remaining - 1, 0);
    const headers: Record<string, string> = {
      'content-type': 'application/json; charset=utf-8',
      'x-ratelimit-limit': '5000',
      'x-ratelimit-remaining': String(remaining),
      'x-ratelimit-used': String(5000 - remaining),
      'x-ratelimit-reset': String(Math.floor(Date.now() / 1000) + 3600),
      'x-ratelimit-resource': 'core',
      'x-github-api-version-selected': '2022-11-28',
      'x-github-request-id': `EMU:${calls.length.toString(16).toUpperCase().padStart(8, '0')}`,
      ...(emu.options.tokenUser && emu.options.tokenScopes
        ? { 'x-oauth-scopes': emu.options.tokenScopes.join(', ') }
        : {}),
      ...reply.headers,
    };
    res.writeHead(reply.status, headers);
    res.end(reply.body === undefined ? '' : JSON.stringify(reply.body));
  };

  const sendRaw = (res: ServerResponse, reply: RawReply): void => {
    res.writeHead(reply.status, reply.headers ?? {});
    res.end(reply.bytes ?? '');
  };

  const server = createServer((req, res) => {
    const at = Date.now();
    const url = new URL(req.url ?? '/', 'http://emulator.invalid');
    const call: RecordedCall = {
      method: req.method ?? 'GET',
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      body: undefined,
      status: 0,
      at,
      answeredAt: 0,
    };
    calls.push(call);
    const download = signedDownload(emu, req, url);
    if (download) {
      // A download may be held too (a slow or stalled storage host), and is answered when released.
      void Promise.resolve(holdFor(call.method, url.pathname)).then(() => {
        call.answeredAt = Date.now();
        call.status = download.status;
        sendRaw(res, download);
      });
      return;
    }
    readBody(req)
      .then((raw) => dispatch(req, url, raw, call))
      .catch((error: unknown) => {
        if (error instanceof HttpError) return { status: error.status, body: error.body };
        violations.push(`emulator error on ${req.method} ${url.pathname}: ${String(error)}`);
        return { status: 500, body: { message: 'Emulator error' } };
      })
      .then(async (reply) => {
        const wait = at + (emu.options.latencyMs ?? 0) - Date.now();
        if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
        await holdFor(call.method, url.pathname);
        call.answeredAt = Date.now();
        call.status = reply.status;
        call.response = reply.body;
        send(res, reply);
      });
  });

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    get notModified() {
      return notModified;
    },
    failNext: (match, response, times = 1) => {
      injected.push({
        ...(match.method ? { method: match.method } : {}),
        path: match.path,
        response,
        left: times,
      });
    },
    holdNext: (match) => {
      let release = () => {};
      const released = new Promise<void>((resolve) => (release = resolve));
      holds.push({ ...(match.method ? { method: match.method } : {}), path: match.path, released, release });
      return release;
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        for (const hold of holds.splice(0)) hold.release();
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}
