// A scripted stand-in for the Anthropic Messages API, used by tests, `npm run demo` and `npm run bench`.
// It answers the real `@anthropic-ai/sdk` over real HTTP from a script of responses, and refuses with a 400
// wherever the real API would, so that a bug in the agent loop shows up as a failed request (and in
// `violations`) instead of passing silently. Only Node's `http` and `crypto` are used. The pieces live in
// ./anthropic/: the request rules, token and cache accounting, the wire format, and the `sonnet-5-5` mode
// (preserved thinking).
import http from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PromptCache, estimateTokens } from './cache.js';
import { findViolation } from './rules.js';
import { sendError, sendJson, wireBlock, wireUsage, writeStream, type WireMessage } from './sse.js';
import {
  asPreservedThinking,
  betaHeaders,
  boundElsewhere,
  refusedSetting,
  ThinkingBinder,
  withoutBlocks,
} from './thinking.js';
import type {
  Json,
  ModelServerOptions,
  RecordedRequest,
  ScriptedContent,
  ScriptedModelServer,
  ScriptedResponse,
  ScriptedUsage,
  ScriptStep,
  TextContent,
  ThinkingContent,
  ToolUseContent,
} from './types.js';
import { readBody } from '../http-body.js';
import { referencedTools, searchBlocks, toolSearchViolation, unfoundCall } from './tool-search.js';
import { tokenEndpoint } from './federation.js';
import { structuredOutputViolation } from './structured-output.js';
import type { WireBlock } from './sse.js';
import { compactionBeta, CompactionDesk, defaultSummary, iteration } from './compaction.js';

export * from './types.js';
export { estimateInputTokens, estimateTokens } from './cache.js';
export { findViolation } from './rules.js';
export { toolSearch, REGEX_TOOL } from './tool-search.js';

/**
 * The Messages and Token Counting APIs take at most 32 MB a request (the API overview's request size limits);
 * counted here in decimal megabytes, the stricter reading.
 */
const MAX_REQUEST_BYTES = 32 * 1000 * 1000;
const TOO_LARGE = 'Request exceeds the maximum allowed number of bytes.';
export { BINDING_BETA } from './thinking.js';

export function text(t: string): TextContent {
  return { type: 'text', text: t };
}

export function toolUse(name: string, input: unknown, id?: string): ToolUseContent {
  return id === undefined ? { type: 'tool_use', name, input } : { type: 'tool_use', id, name, input };
}

export function thinking(thought: string, signature = 'sig'): ThinkingContent {
  return { type: 'thinking', thinking: thought, signature };
}

/** A model turn; stop_reason is `tool_use` if any block is a tool_use, else `end_turn`. */
export function reply(...content: ScriptedContent[]): ScriptedResponse {
  const stop_reason = content.some((block) => block.type === 'tool_use') ? 'tool_use' : 'end_turn';
  return { content, stop_reason };
}

export function apiError(
  status: number,
  type: string,
  message: string,
  headers?: Record<string, string>,
): ScriptedResponse {
  return { error: { status, type, message, ...(headers ? { headers } : {}) } };
}

export function dropConnection(): ScriptedResponse {
  return { drop: true };
}

// ---------------------------------------------------------------------------------------------------------
// The server

const DEFAULT_CONTEXT_WINDOW = { classic: 200_000, 'sonnet-5-5': 1_000_000 } as const;

function parseJson(raw: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(raw) as unknown };
  } catch {
    return { ok: false };
  }
}

function authorized(headers: IncomingMessage['headers'], apiKey: string | undefined): boolean {
  if (apiKey === undefined) return true;
  return headers['x-api-key'] === apiKey || headers.authorization === `Bearer ${apiKey}`;
}

const counterId = (prefix: string) => {
  let n = 0;
  return (): string => `${prefix}${(++n).toString(36).padStart(20, '0')}`;
};

export async function startModelServer(
  script: ScriptStep[],
  options: ModelServerOptions = {},
): Promise<ScriptedModelServer> {
  const steps = [...script];
  const mode = options.mode ?? 'classic';
  const contextWindow = options.contextWindow ?? DEFAULT_CONTEXT_WINDOW[mode];
  const cache = new PromptCache();
  const desk = new CompactionDesk();
  const binder = mode === 'sonnet-5-5' ? new ThinkingBinder() : undefined;
  const ids = {
    message: counterId('msg_01'),
    tool: counterId('toolu_01'),
    serverTool: counterId('srvtoolu_01'),
    request: counterId('req_01'),
  };
  const timers = new Set<NodeJS.Timeout>();
  const tokens = options.federation ? tokenEndpoint(options.federation) : undefined;
  let played = 0;
  let closing: Promise<void> | undefined;

  const pause = (ms: number): Promise<void> =>
    new Promise((resolve) => {
      const timer = setTimeout(() => {
        timers.delete(timer);
        resolve();
      }, ms);
      timers.add(timer);
    });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const raw = await readBody(req);
    const method = req.method ?? 'GET';
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    const requestId = ids.request();
    if (tokens && method === 'POST' && path === '/v1/oauth/token') {
      const { status, body } = tokens.exchange(raw, req.headers);
      return sendJson(res, status, body, { 'request-id': requestId });
    }
    const endpoint =
      method !== 'POST'
        ? undefined
        : path === '/v1/messages'
          ? 'messages'
          : path === '/v1/messages/count_tokens'
            ? 'count_tokens'
            : undefined;
    if (!endpoint) return sendError(res, requestId, 404, 'not_found_error', `Not found: ${method} ${path}`);

    const parsed = parseJson(raw);
    const body = parsed.ok ? parsed.value : raw;
    let record: RecordedRequest | undefined;
    if (endpoint === 'messages') {
      record = {
        method,
        path,
        headers: { ...req.headers },
        body,
        index: server.requests.length,
        receivedAt: Date.now(),
      };
      server.requests.push(record);
    }
    const refuse = (message: string, code?: string): void => {
      if (record) server.violations.push({ index: record.index, message });
      sendError(res, requestId, 400, 'invalid_request_error', message, {}, code);
    };

    // Before the key or the body is looked at: Cloudflare refuses it in front of the API (the errors page).
    if (Buffer.byteLength(raw, 'utf8') > MAX_REQUEST_BYTES) {
      if (record) server.violations.push({ index: record.index, message: TOO_LARGE });
      return sendError(res, requestId, 413, 'request_too_large', TOO_LARGE);
    }
    if (options.latencyMs) await pause(options.latencyMs);
    const unauthorized = tokens
      ? tokens.authorize(req.headers)
      : authorized(req.headers, options.apiKey)
        ? undefined
        : 'invalid x-api-key';
    if (unauthorized) return sendError(res, requestId, 401, 'authentication_error', unauthorized);
    if (!req.headers['anthropic-version']) return refuse('anthropic-version: header is required');
    if (!parsed.ok) return refuse('There was an error parsing the body as JSON');
    const betas = betaHeaders(req.headers);
    const compacting = desk.check(body as Json, betas);
    if (compacting) return refuse(compacting.message, compacting.code);
    // Whatever stands before a compaction block is ignored: the rules and the model read what follows it.
    let seen = CompactionDesk.effective(body as Json);
    const problem =
      findViolation(seen, endpoint) ?? toolSearchViolation(seen) ?? structuredOutputViolation(seen);
    if (problem) return refuse(problem);
    const dropped: Json[] = [];
    if (binder) {
      const refused = refusedSetting(seen, betas);
      if (refused) return refuse(refused);
      const invalid = binder.check(seen).filter((block) => !block.valid);
      const binding = (seen.thinking as { block_binding?: { prefix_mismatch_behavior?: string } } | undefined)
        ?.block_binding;
      const first = invalid[0];
      if (first && binding?.prefix_mismatch_behavior !== 'drop_block')
        return refuse(boundElsewhere(first.path, binding !== undefined));
      // drop_block: the model reads the request without the blocks, and the reply says which went.
      seen = withoutBlocks(seen, new Set(invalid.map((block) => block.path)));
      for (const block of invalid)
        dropped.push({ type: 'thinking_dropped', path: block.path, reason: 'prefix_mismatch' });
    }
    const measure = cache.measure(seen);
    if (measure.total > contextWindow)
      return refuse(`prompt is too long: ${measure.total} tokens > ${contextWindow} maximum`);
    if (endpoint === 'count_tokens') return sendJson(res, 200, { input_tokens: measure.total });
    const summary = (): string | null =>
      options.summary ? options.summary(record as RecordedRequest) : defaultSummary(seen);
    const iterations: Json[] = [];
    const opening: WireBlock[] = [];
    let sized = measure;
    if ((body as Json).compaction != null) {
      // On demand: the summary alone, no script step played; its tokens only in usage.iterations.
      const text = summary();
      iterations.push(iteration('compaction', measure, text));
      cache.commit(measure);
      const zero = {
        input_tokens: 0,
        output_tokens: 0,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 0,
      };
      const message: WireMessage = {
        id: ids.message(),
        type: 'message',
        role: 'assistant',
        model: String((body as Json).model),
        content: text === null ? [] : [desk.block('on-demand', text) as WireBlock],
        stop_reason: text === null ? 'end_turn' : 'compaction',
        stop_sequence: null,
        stop_details: null,
        container: null,
        diagnostics: null,
        usage: { ...wireUsage(zero), iterations },
      };
      if ((body as Json).stream === true) writeStream(res, message, {}, requestId);
      else sendJson(res, 200, message, { 'request-id': requestId });
      return;
    }
    if (CompactionDesk.fires(seen, measure.total)) {
      // At the threshold: the summary first, then the reply from the summary alone.
      const text = summary();
      const block = desk.block('threshold', text) as WireBlock;
      iterations.push(iteration('compaction', measure, text));
      opening.push(block);
      cache.commit(measure);
      if (text !== null)
        sized = cache.measure({ ...seen, messages: [{ role: 'assistant', content: [block] }] });
    }

    const step = steps.shift();
    if (step === undefined) return refuse(`scripted model server: script exhausted after ${played} requests`);
    played++;
    let response: ScriptedResponse;
    try {
      response = typeof step === 'function' ? step(record as RecordedRequest, server) : step;
    } catch (error) {
      return refuse(`scripted model server: script step ${played} threw: ${(error as Error).message}`);
    }
    if (response.drop) {
      req.socket.destroy();
      return;
    }
    if (response.error) {
      const { status, type, message, headers } = response.error;
      return sendError(res, requestId, status, type, message, headers);
    }

    const scripted = binder ? asPreservedThinking(response.content ?? []) : (response.content ?? []);
    // A search is answered from the request's deferred tools; a deferred tool may be called once found.
    const found = new Set<string>();
    let content: WireBlock[];
    try {
      content = scripted.flatMap((block): WireBlock[] => {
        if (block.type === 'tool_search') {
          const blocks = searchBlocks(block.query, body as Json, ids.serverTool()) as WireBlock[];
          for (const name of blocks.flatMap(referencedTools)) found.add(name);
          return blocks;
        }
        const unfound = block.type === 'tool_use' ? unfoundCall(block.name, body as Json, found) : undefined;
        if (unfound) throw new Error(unfound);
        return [wireBlock(block, ids.tool)];
      });
    } catch (error) {
      return refuse(`scripted model server: script step ${played}: ${(error as Error).message}`);
    }
    binder?.signReply(body as Json, content);
    const usage: ScriptedUsage = {
      input_tokens: sized.total - sized.read - sized.creation,
      cache_creation_input_tokens: sized.creation,
      cache_read_input_tokens: sized.read,
      output_tokens: Math.max(1, estimateTokens(content)),
      ...response.usage,
    };
    // With a compaction beta every answer reports its iterations; the top level counts the reply alone.
    if (compactionBeta(betas)) iterations.push({ type: 'message', ...usage });
    content = [...opening, ...content];
    const stopReason =
      response.stop_reason ?? (content.some((b) => b.type === 'tool_use') ? 'tool_use' : 'end_turn');
    const message: WireMessage = {
      id: ids.message(),
      type: 'message',
      role: 'assistant',
      model: String((body as Json).model),
      content,
      stop_reason: stopReason,
      stop_sequence: null,
      stop_details: null,
      container: null,
      diagnostics: null,
      usage: { ...wireUsage(usage), ...(iterations.length > 0 ? { iterations } : {}) },
      ...(binder ? { input_transformations: dropped } : {}),
    };
    cache.commit(measure);
    if ((body as Json).stream === true) writeStream(res, message, response, requestId);
    else sendJson(res, 200, message, { 'request-id': requestId });
  }

  const httpServer = http.createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) sendError(res, 'req_internal', 500, 'api_error', String(error));
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    httpServer.once('error', reject);
    httpServer.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = httpServer.address() as AddressInfo;

  const server: ScriptedModelServer = {
    url: `http://127.0.0.1:${port}`,
    requests: [],
    violations: [],
    ...(tokens ? { tokens } : {}),
    remaining: () => steps.length,
    push: (...more) => {
      steps.push(...more);
    },
    close: () => {
      closing ??= new Promise<void>((resolve, reject) => {
        for (const timer of timers) clearTimeout(timer);
        timers.clear();
        httpServer.close((error) => (error ? reject(error) : resolve()));
        httpServer.closeAllConnections();
      });
      return closing;
    },
  };
  return server;
}
