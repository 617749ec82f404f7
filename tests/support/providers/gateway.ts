// The front door shared by the local Bedrock and Vertex stand-ins. Each platform checks a request in its own
// shape (its path, its authentication, the API version in the body and the model in the URL), then the
// gateway hands the Messages request on, over local HTTP, to the scripted Anthropic server
// (anthropic/server.ts), which plays the script and enforces the API's rules as for a direct call; the
// platform then writes the answer back in its own framing. So a provider test runs the same scripts, rules
// and model modes as every other test, and fails where the platform would refuse.
import http from 'node:http';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  startModelServer,
  type ModelServerOptions,
  type ScriptStep,
  type ScriptedModelServer,
} from '../anthropic/server.js';

export interface PlatformRequest {
  method: string;
  /** Path and query as received. */
  url: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** A refusal in the platform's own error shape. */
export interface Refusal {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

/** The Messages request a platform request stands for. */
export interface Unwrapped {
  model: string;
  stream: boolean;
  /** The body as sent, without `anthropic_version` and `anthropic_beta` (which become headers again). */
  body: Record<string, unknown>;
  version: string;
  /** The betas the request asked for (from `anthropic_beta` in the body, or where the platform reads them). */
  betas: string[];
}

export interface Platform {
  /** What the SDK is given as its base URL, relative to the server's origin (e.g. `/v1` on Vertex). */
  basePath: string;
  /** The platform's own checks; a Refusal ends the request there. */
  unwrap(request: PlatformRequest): Refusal | Unwrapped;
  /** Writes the scripted server's answer to the client in the platform's framing. */
  answer(upstream: Response, res: ServerResponse): Promise<void>;
}

export interface PlatformServer {
  /** The base URL to give the platform SDK. */
  url: string;
  /** The scripted Anthropic server behind the door: its script, requests (with `model` put back) and rules. */
  model: ScriptedModelServer;
  /** Every request as it reached the door. */
  requests: PlatformRequest[];
  /** Every refusal the platform's own checks gave. */
  refusals: { url: string; status: number; body: unknown }[];
  close(): Promise<void>;
}

type Json = Record<string, unknown>;

/** The body rules the platforms share: JSON, `anthropic_version` in the body, no `model` field. */
export function unwrapBody(raw: Buffer, model: string, stream: boolean): Refusal | Unwrapped {
  let body: unknown;
  try {
    body = JSON.parse(raw.toString('utf8'));
  } catch {
    return { status: 400, body: { message: 'The request body is not valid JSON' } };
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    return { status: 400, body: { message: 'The request body must be a JSON object' } };
  const { anthropic_version: version, anthropic_beta: betas, ...rest } = body as Json;
  if (typeof version !== 'string' || version === '')
    return { status: 400, body: { message: 'anthropic_version is required in the request body' } };
  if ('model' in rest)
    return { status: 400, body: { message: 'model is not allowed in the body: it is part of the URL' } };
  if (betas !== undefined && !(Array.isArray(betas) && betas.every((beta) => typeof beta === 'string')))
    return { status: 400, body: { message: 'anthropic_beta: Input should be a valid list of strings' } };
  return { model, stream, body: rest, version, betas: betas ?? [] };
}

/**
 * The message a platform's strict schema gives for a field it does not know, at the dotted `path` (e.g.
 * `output_config.effort`), or undefined when the body has no such field. Like the real message, it names
 * the thinking type after `thinking` (`thinking.adaptive.block_binding…`).
 */
export function extraInput(body: Json, path: string): string | undefined {
  const named: string[] = [];
  let value: unknown = body;
  for (const key of path.split('.')) {
    if (typeof value !== 'object' || value === null || !(key in value)) return undefined;
    const parent = value as Json;
    value = parent[key];
    named.push(key);
    if (key === 'thinking' && typeof (value as Json | null)?.type === 'string')
      named.push(String((value as Json).type));
  }
  return `${named.join('.')}: Extra inputs are not permitted`;
}

async function readRaw(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

const KEY = 'sk-ant-platform-gateway-000000000000';

export async function startPlatformServer(
  script: ScriptStep[],
  platform: Platform,
  options: Omit<ModelServerOptions, 'apiKey'> = {},
): Promise<PlatformServer> {
  const model = await startModelServer(script, { ...options, apiKey: KEY });
  const requests: PlatformRequest[] = [];
  const refusals: PlatformServer['refusals'] = [];

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const request: PlatformRequest = {
      method: req.method ?? 'GET',
      url: req.url ?? '/',
      headers: { ...req.headers },
      body: await readRaw(req),
    };
    requests.push(request);
    const verdict = platform.unwrap(request);
    if ('status' in verdict) {
      refusals.push({ url: request.url, status: verdict.status, body: verdict.body });
      res.writeHead(verdict.status, { 'content-type': 'application/json', ...verdict.headers });
      res.end(JSON.stringify(verdict.body));
      return;
    }
    const upstream = await fetch(`${model.url}/v1/messages`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-api-key': KEY,
        'anthropic-version': verdict.version,
        ...(verdict.betas.length ? { 'anthropic-beta': verdict.betas.join(',') } : {}),
      },
      body: JSON.stringify({
        ...verdict.body,
        model: verdict.model,
        ...(verdict.stream ? { stream: true } : {}),
      }),
    });
    await platform.answer(upstream, res);
  }

  const httpServer = http.createServer((req, res) => {
    handle(req, res).catch(() => res.destroy()); // a dropped upstream connection drops this one too
  });
  await new Promise<void>((resolve, reject) => {
    httpServer.once('error', reject);
    httpServer.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = httpServer.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${platform.basePath}`,
    model,
    requests,
    refusals,
    async close() {
      await new Promise<void>((resolve) => {
        httpServer.close(() => resolve());
        httpServer.closeAllConnections();
      });
      await model.close();
    },
  };
}

/** The `data` of each server-sent event in `body`, as it arrives. */
export async function* sseData(body: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const chunk of body) {
    buffer += decoder.decode(chunk, { stream: true });
    let end: number;
    while ((end = buffer.indexOf('\n\n')) !== -1) {
      const event = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const data = event
        .split('\n')
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5).trimStart())
        .join('\n');
      if (data) yield data;
    }
  }
}
