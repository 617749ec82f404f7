// A scripted stand-in for the Anthropic Messages API, used by tests, `npm run demo` and `npm run bench`.
// It answers the real `@anthropic-ai/sdk` over real HTTP from a script of responses, and refuses with a 400
// wherever the real API would, so that a bug in the agent loop shows up as a failed request (and in
// `violations`) instead of passing silently. Only Node's `http` and `crypto` are used.
import { createHash } from 'node:crypto';
import http from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readBody } from './http-body.js';

// ---------------------------------------------------------------------------------------------------------
// Public types

export interface RecordedRequest {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  /** The parsed JSON body, or the raw text when it was not JSON. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary request fields
  body: any;
  /** Position among all `/v1/messages` requests, from 0. */
  index: number;
  receivedAt: number;
}

export interface TextContent {
  type: 'text';
  text: string;
}
export interface ToolUseContent {
  type: 'tool_use';
  id?: string;
  name: string;
  input: unknown;
}
export interface ThinkingContent {
  type: 'thinking';
  thinking: string;
  signature: string;
}
export type ScriptedContent = TextContent | ToolUseContent | ThinkingContent;

export type StopReason =
  | 'end_turn'
  | 'tool_use'
  | 'max_tokens'
  | 'stop_sequence'
  | 'pause_turn'
  | 'refusal'
  | 'model_context_window_exceeded';

export interface ScriptedUsage {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
}

export interface ScriptedResponse {
  content?: ScriptedContent[];
  stop_reason?: StopReason;
  /** Fields given here replace the computed ones. */
  usage?: Partial<ScriptedUsage>;
  /** Answer with this HTTP error instead (e.g. 429, 500, 529, 401), body in the API's error shape. */
  error?: { status: number; type: string; message: string; headers?: Record<string, string> };
  /** Destroy the socket without answering (a dropped connection). */
  drop?: boolean;
  /** For streaming requests: send an SSE `error` event after the first content block. */
  streamError?: { type: string; message: string };
  /** For streamed text and tool_use input: deliver it in pieces of this many characters (default: ~3 pieces). */
  chunkSize?: number;
}

export type ScriptStep =
  ScriptedResponse | ((request: RecordedRequest, server: ScriptedModelServer) => ScriptedResponse);

export interface ScriptedModelServer {
  /** e.g. http://127.0.0.1:PORT, to pass as `baseURL` to the SDK. */
  url: string;
  /** Every `/v1/messages` request, valid or not, in order. */
  requests: RecordedRequest[];
  /** Every 400 this server gave for a rule break (including an exhausted script). */
  violations: { index: number; message: string }[];
  /** Script steps not yet played. */
  remaining(): number;
  push(...steps: ScriptStep[]): void;
  close(): Promise<void>;
}

export interface ModelServerOptions {
  /** When set, require `x-api-key: <key>` or `authorization: Bearer <key>`. */
  apiKey?: string;
  /** Maximum estimated input tokens (default 200000). */
  contextWindow?: number;
  /** Wait this long before answering each request. */
  latencyMs?: number;
}

// ---------------------------------------------------------------------------------------------------------
// Builders for scripts

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
// Token estimates and prompt caching

/** Deterministic token estimate: a quarter of the characters of the string or of its JSON. */
export function estimateTokens(value: unknown): number {
  if (value === undefined) return 0;
  const chars = typeof value === 'string' ? value : (JSON.stringify(value) ?? '');
  return Math.ceil(chars.length / 4);
}

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const asArray = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);

/** One cacheable piece of the prompt: a tool, a system block or a message block. */
interface PromptUnit {
  key: string;
  tokens: number;
  breakpoint: boolean;
}

/** A user or assistant turn after merging consecutive same-role messages, as the API does. */
interface Turn {
  role: string;
  blocks: { block: Json; msgIndex: number; blockIndex: number }[];
}

function mergeTurns(messages: unknown[]): Turn[] {
  const turns: Turn[] = [];
  messages.forEach((message, msgIndex) => {
    if (!isObject(message)) return;
    const role = String(message.role);
    const content =
      typeof message.content === 'string'
        ? [{ type: 'text', text: message.content }]
        : asArray(message.content);
    const blocks = content.filter(isObject).map((block, blockIndex) => ({ block, msgIndex, blockIndex }));
    const last = turns.at(-1);
    if (last && last.role === role) last.blocks.push(...blocks);
    else turns.push({ role, blocks });
  });
  return turns;
}

const systemBlocks = (system: unknown): unknown[] =>
  typeof system === 'string' ? (system === '' ? [] : [{ type: 'text', text: system }]) : asArray(system);

/** A tool_result may carry cache_control on itself and on the blocks inside it. */
function cacheMarks(block: unknown): number {
  if (!isObject(block)) return 0;
  const own = block.cache_control != null ? 1 : 0;
  const nested =
    block.type === 'tool_result' ? asArray(block.content).reduce<number>((n, b) => n + cacheMarks(b), 0) : 0;
  return own + nested;
}

/** The cache key ignores where the markers sit, so a marker that moves does not break the prefix. */
function withoutCacheControl(block: unknown): unknown {
  if (!isObject(block)) return block;
  const { cache_control: _marker, ...rest } = block;
  if (block.type === 'tool_result' && Array.isArray(rest.content))
    rest.content = rest.content.map(withoutCacheControl);
  return rest;
}

/** Tools, then system, then messages: the order in which the API caches a prompt. */
function promptUnits(body: Json): PromptUnit[] {
  const units: PromptUnit[] = [];
  const add = (kind: string, value: unknown): void => {
    const plain = withoutCacheControl(value);
    units.push({
      key: JSON.stringify([kind, plain]),
      tokens: estimateTokens(plain),
      breakpoint: cacheMarks(value) > 0,
    });
  };
  for (const tool of asArray(body.tools)) add('tool', tool);
  for (const block of systemBlocks(body.system)) add('system', block);
  for (const turn of mergeTurns(asArray(body.messages)))
    for (const { block } of turn.blocks) add(turn.role, block);
  return units;
}

/** The estimated input tokens of a request body: the sum of its tools, system blocks and message blocks. */
export function estimateInputTokens(body: unknown): number {
  return isObject(body) ? promptUnits(body).reduce((sum, unit) => sum + unit.tokens, 0) : 0;
}

interface PromptMeasure {
  total: number;
  read: number;
  creation: number;
  /** Digests of the prefixes that end at this request's breakpoints: cache entries it writes. */
  writes: string[];
}

/** The API looks back this many blocks from a breakpoint for an earlier cache entry. */
const CACHE_LOOKBACK_BLOCKS = 20;

/** Remembers the prefixes earlier requests wrote at their breakpoints, and measures hits against them. */
class PromptCache {
  private readonly entries = new Set<string>();

  measure(body: Json): PromptMeasure {
    const units = promptUnits(body);
    const hash = createHash('sha256');
    const digests: string[] = [];
    const tokensThrough: number[] = [];
    let sum = 0;
    for (const unit of units) {
      hash.update(unit.key).update('\u0000');
      digests.push(hash.copy().digest('hex'));
      sum += unit.tokens;
      tokensThrough.push(sum);
    }
    const breakpoints = units.flatMap((unit, i) => (unit.breakpoint ? [i] : []));
    let readEnd = -1;
    for (const b of breakpoints) {
      for (let p = b; p >= Math.max(0, b - CACHE_LOOKBACK_BLOCKS + 1); p--) {
        if (this.entries.has(digests[p] ?? '')) {
          readEnd = Math.max(readEnd, p);
          break;
        }
      }
    }
    const upTo = (i: number): number => (i < 0 ? 0 : (tokensThrough[i] ?? 0));
    const read = upTo(readEnd);
    const lastBreakpoint = breakpoints.at(-1) ?? -1;
    const creation = lastBreakpoint > readEnd ? upTo(lastBreakpoint) - read : 0;
    return { total: sum, read, creation, writes: breakpoints.map((b) => digests[b] ?? '') };
  }

  commit(measure: PromptMeasure): void {
    for (const digest of measure.writes) this.entries.add(digest);
  }
}

// ---------------------------------------------------------------------------------------------------------
// Request validation: each check returns the API's 400 message, or undefined when the request passes.

const SAMPLING_PARAMETERS = ['temperature', 'top_p', 'top_k'] as const;
const TOOL_NAME = /^[a-zA-Z0-9_-]{1,128}$/;
const MAX_CACHE_MARKS = 4;

function textProblem(where: string, value: unknown): string | undefined {
  if (typeof value !== 'string') return `${where}: text content blocks must have a string \`text\``;
  if (value === '') return `${where}: text content blocks must be non-empty`;
  if (value.trim() === '') return `${where}: text content blocks must contain non-whitespace text`;
  return undefined;
}

function checkTopLevel(body: Json, requireMaxTokens: boolean): string | undefined {
  if (body.model === undefined) return 'model: Field required';
  if (typeof body.model !== 'string' || body.model === '') return 'model: Input should be a valid string';
  if (requireMaxTokens) {
    const max = body.max_tokens;
    if (max === undefined) return 'max_tokens: Field required';
    if (typeof max !== 'number' || !Number.isInteger(max))
      return 'max_tokens: Input should be a valid integer';
    if (max < 1) return 'max_tokens: Input should be greater than or equal to 1';
  }
  if (body.messages === undefined) return 'messages: Field required';
  if (!Array.isArray(body.messages)) return 'messages: Input should be a valid list';
  if (body.messages.length === 0) return 'messages: at least one message is required';
  for (const name of SAMPLING_PARAMETERS) {
    if (body[name] != null)
      return `${name}: this model does not support sampling parameters; remove \`${name}\``;
  }
  return undefined;
}

function checkTools(body: Json): string | undefined {
  if (body.tools === undefined) return undefined;
  if (!Array.isArray(body.tools)) return 'tools: Input should be a valid list';
  const names = new Set<string>();
  for (const [i, tool] of body.tools.entries()) {
    if (!isObject(tool)) return `tools.${i}: Input should be a valid dictionary`;
    const custom = tool.type === undefined || tool.type === null || tool.type === 'custom';
    if (custom) {
      if (typeof tool.name !== 'string' || !TOOL_NAME.test(tool.name))
        return `tools.${i}.custom.name: String should match pattern '${TOOL_NAME.source}'`;
      if (!isObject(tool.input_schema)) return `tools.${i}.custom.input_schema: Field required`;
      if (tool.input_schema.type !== 'object')
        return `tools.${i}.custom.input_schema.type: Input should be 'object'`;
    }
    if (typeof tool.name === 'string') {
      if (names.has(tool.name)) return 'tools: Tool names must be unique.';
      names.add(tool.name);
    }
  }
  return undefined;
}

function checkSystem(body: Json): string | undefined {
  const system = body.system;
  if (system === undefined || typeof system === 'string') return undefined;
  if (!Array.isArray(system)) return 'system: Input should be a valid string or list';
  for (const [i, block] of system.entries()) {
    if (!isObject(block) || block.type !== 'text') return `system.${i}.type: Input should be 'text'`;
    const problem = textProblem('system', block.text);
    if (problem) return problem;
  }
  return undefined;
}

function checkBlock(block: unknown, role: string, at: string): string | undefined {
  if (!isObject(block) || typeof block.type !== 'string') return `${at}.type: Field required`;
  switch (block.type) {
    case 'text':
      return textProblem('messages', block.text);
    case 'tool_use':
      if (role !== 'assistant') return `${at}: \`tool_use\` blocks can only appear in assistant messages`;
      if (typeof block.id !== 'string' || block.id === '') return `${at}.tool_use.id: Field required`;
      if (typeof block.name !== 'string') return `${at}.tool_use.name: Field required`;
      if (!isObject(block.input)) return `${at}.tool_use.input: Input should be a valid dictionary`;
      return undefined;
    case 'tool_result':
      if (role !== 'user') return `${at}: \`tool_result\` blocks can only appear in user messages`;
      if (typeof block.tool_use_id !== 'string') return `${at}.tool_result.tool_use_id: Field required`;
      for (const inner of asArray(block.content)) {
        if (isObject(inner) && inner.type === 'text') {
          const problem = textProblem('messages', inner.text);
          if (problem) return problem;
        }
      }
      return undefined;
    default:
      return undefined;
  }
}

function checkMessageShapes(messages: unknown[]): string | undefined {
  const lastIndex = messages.length - 1;
  for (const [i, message] of messages.entries()) {
    if (!isObject(message)) return `messages.${i}: Input should be a valid dictionary`;
    const role = message.role;
    if (role !== 'user' && role !== 'assistant')
      return `messages.${i}.role: Input should be 'user' or 'assistant'`;
    const content = message.content;
    if (content === undefined) return `messages.${i}.content: Field required`;
    if (typeof content !== 'string' && !Array.isArray(content))
      return `messages.${i}.content: Input should be a valid string or list`;
    const finalAssistant = i === lastIndex && role === 'assistant';
    if (content.length === 0) {
      if (finalAssistant) continue;
      return `messages.${i}: all messages must have non-empty content except for the optional final assistant message`;
    }
    if (typeof content === 'string') {
      const problem = textProblem('messages', content);
      if (problem) return problem;
      continue;
    }
    for (const [j, block] of content.entries()) {
      const problem = checkBlock(block, role, `messages.${i}.content.${j}`);
      if (problem) return problem;
    }
  }
  return undefined;
}

function checkCacheMarks(body: Json): string | undefined {
  let marks = 0;
  for (const tool of asArray(body.tools)) if (isObject(tool) && tool.cache_control != null) marks++;
  for (const block of systemBlocks(body.system)) marks += cacheMarks(block);
  for (const turn of mergeTurns(asArray(body.messages)))
    for (const { block } of turn.blocks) marks += cacheMarks(block);
  if (marks > MAX_CACHE_MARKS)
    return `A maximum of ${MAX_CACHE_MARKS} blocks with cache_control may be provided. Found ${marks}.`;
  return undefined;
}

type Located = Turn['blocks'][number];
const at = (b: Located): string => `messages.${b.msgIndex}.content.${b.blockIndex}`;
const ofType = (turn: Turn | undefined, type: string): Located[] =>
  turn ? turn.blocks.filter(({ block }) => block.type === type) : [];

function checkAssistantTurn(
  turn: Turn,
  next: Turn | undefined,
  tools: Set<string>,
  seenIds: Set<string>,
): string | undefined {
  const uses = ofType(turn, 'tool_use');
  for (const use of uses) {
    const { id, name } = use.block as { id: string; name: string };
    if (tools.size === 0)
      return 'Requests which include `tool_use` or `tool_result` blocks must define tools.';
    if (!tools.has(name))
      return `${at(use)}: \`tool_use\` name \`${name}\` does not match any tool in \`tools\``;
    if (seenIds.has(id)) return `${at(use)}: \`tool_use\` ids must be unique`;
    seenIds.add(id);
  }
  if (!next) {
    const last = turn.blocks.at(-1);
    if (last?.block.type === 'tool_use')
      return `messages.${last.msgIndex}: the final assistant message cannot end with a \`tool_use\` block`;
    const lastText = last?.block.type === 'text' ? String(last.block.text) : '';
    if (lastText !== lastText.trimEnd()) return 'final assistant content cannot end with trailing whitespace';
    return undefined;
  }
  const answered = new Set(ofType(next, 'tool_result').map(({ block }) => block.tool_use_id));
  const missing = uses.filter(({ block }) => !answered.has(block.id));
  const first = missing[0];
  if (!first) return undefined;
  const ids = missing.map(({ block }) => String(block.id)).join(', ');
  return (
    `messages.${first.msgIndex}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ` +
    `${ids}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`
  );
}

function checkUserTurn(turn: Turn, previous: Turn | undefined, tools: Set<string>): string | undefined {
  const results = ofType(turn, 'tool_result');
  const lastResult = results.at(-1);
  if (!lastResult) return undefined;
  if (tools.size === 0) return 'Requests which include `tool_use` or `tool_result` blocks must define tools.';
  const offered = new Set(
    previous?.role === 'assistant' ? ofType(previous, 'tool_use').map(({ block }) => block.id) : [],
  );
  const unexpected = results.filter(({ block }) => !offered.has(block.tool_use_id));
  const firstUnexpected = unexpected[0];
  if (firstUnexpected) {
    const ids = unexpected.map(({ block }) => String(block.tool_use_id)).join(', ');
    return (
      `${at(firstUnexpected)}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${ids}. ` +
      'Each `tool_result` block must have a corresponding `tool_use` block in the previous message.'
    );
  }
  const seen = new Set<unknown>();
  for (const result of results) {
    if (seen.has(result.block.tool_use_id))
      return `${at(result)}: each \`tool_use\` must have a single result. Found multiple \`tool_result\` blocks with id: ${String(result.block.tool_use_id)}`;
    seen.add(result.block.tool_use_id);
  }
  const lastResultPos = turn.blocks.indexOf(lastResult);
  const early = turn.blocks.slice(0, lastResultPos).find(({ block }) => block.type !== 'tool_result');
  if (early)
    return (
      `${at(early)}: \`tool_result\` blocks must come first in a user turn that answers \`tool_use\` blocks; ` +
      `found a \`${String(early.block.type)}\` block before them`
    );
  return undefined;
}

function checkTurns(body: Json): string | undefined {
  const turns = mergeTurns(asArray(body.messages));
  if (turns[0]?.role !== 'user') return 'messages: first message must use the "user" role';
  const tools = new Set(
    asArray(body.tools).flatMap((tool) =>
      isObject(tool) && typeof tool.name === 'string' ? [tool.name] : [],
    ),
  );
  const seenIds = new Set<string>();
  for (const [t, turn] of turns.entries()) {
    const problem =
      turn.role === 'assistant'
        ? checkAssistantTurn(turn, turns[t + 1], tools, seenIds)
        : checkUserTurn(turn, turns[t - 1], tools);
    if (problem) return problem;
  }
  return undefined;
}

/** The first rule the body breaks, worded close to the real API's 400 message; undefined if none. */
export function findViolation(
  body: unknown,
  endpoint: 'messages' | 'count_tokens' = 'messages',
): string | undefined {
  if (!isObject(body)) return 'body: Input should be a valid dictionary';
  return (
    checkTopLevel(body, endpoint === 'messages') ??
    checkTools(body) ??
    checkSystem(body) ??
    checkMessageShapes(asArray(body.messages)) ??
    checkCacheMarks(body) ??
    checkTurns(body)
  );
}

// ---------------------------------------------------------------------------------------------------------
// Wire format

type WireBlock = Json & { type: string };

interface WireMessage {
  id: string;
  type: 'message';
  role: 'assistant';
  model: string;
  content: WireBlock[];
  stop_reason: string | null;
  stop_sequence: null;
  stop_details: null;
  container: null;
  diagnostics: null;
  usage: Json & ScriptedUsage;
}

function wireUsage(usage: ScriptedUsage): Json & ScriptedUsage {
  return {
    ...usage,
    cache_creation: {
      ephemeral_5m_input_tokens: usage.cache_creation_input_tokens,
      ephemeral_1h_input_tokens: 0,
    },
    output_tokens_details: null,
    server_tool_use: null,
    service_tier: 'standard',
    inference_geo: null,
    speed: null,
  };
}

function wireBlock(block: ScriptedContent, newToolId: () => string): WireBlock {
  switch (block.type) {
    case 'text':
      return { type: 'text', text: block.text, citations: null };
    case 'tool_use':
      return {
        type: 'tool_use',
        id: block.id ?? newToolId(),
        name: block.name,
        input: block.input,
        caller: { type: 'direct' },
      };
    case 'thinking':
      return { type: 'thinking', thinking: block.thinking, signature: block.signature };
  }
}

/** Splits by code points so a streamed piece never ends inside a surrogate pair. */
function pieces(value: string, size: number | undefined): string[] {
  const chars = Array.from(value);
  if (chars.length === 0) return [];
  const step = Math.max(1, size ?? Math.ceil(chars.length / 3));
  const out: string[] = [];
  for (let i = 0; i < chars.length; i += step) out.push(chars.slice(i, i + step).join(''));
  return out;
}

/** The block as `content_block_start` announces it, before any delta. */
function emptyBlock(block: WireBlock): WireBlock {
  if (block.type === 'text') return { ...block, text: '' };
  if (block.type === 'tool_use') return { ...block, input: {} };
  if (block.type === 'thinking') return { ...block, thinking: '', signature: '' };
  return block;
}

function blockDeltas(block: WireBlock, chunkSize: number | undefined): Json[] {
  switch (block.type) {
    case 'text':
      return pieces(String(block.text), chunkSize).map((t) => ({ type: 'text_delta', text: t }));
    case 'tool_use': {
      // The API opens a tool_use with an empty partial_json before the real pieces.
      const json = JSON.stringify(block.input ?? {});
      return ['', ...pieces(json, chunkSize)].map((partial_json) => ({
        type: 'input_json_delta',
        partial_json,
      }));
    }
    case 'thinking':
      return [
        ...pieces(String(block.thinking), chunkSize).map((t) => ({ type: 'thinking_delta', thinking: t })),
        { type: 'signature_delta', signature: block.signature },
      ];
    default:
      return [];
  }
}

function writeStream(
  res: ServerResponse,
  message: WireMessage,
  step: ScriptedResponse,
  requestId: string,
): void {
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    'request-id': requestId,
  });
  const send = (event: string, data: Json): void => {
    res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  };
  const failMidStream = (): void => {
    send('error', { type: 'error', error: step.streamError });
    res.end();
  };
  const { output_tokens, ...inputUsage } = message.usage;
  send('message_start', {
    type: 'message_start',
    message: { ...message, content: [], stop_reason: null, usage: { ...message.usage, output_tokens: 1 } },
  });
  if (message.content.length === 0) {
    send('ping', { type: 'ping' });
    if (step.streamError) return failMidStream();
  }
  for (const [index, block] of message.content.entries()) {
    send('content_block_start', { type: 'content_block_start', index, content_block: emptyBlock(block) });
    if (index === 0) send('ping', { type: 'ping' });
    for (const delta of blockDeltas(block, step.chunkSize))
      send('content_block_delta', { type: 'content_block_delta', index, delta });
    send('content_block_stop', { type: 'content_block_stop', index });
    if (index === 0 && step.streamError) return failMidStream();
  }
  send('message_delta', {
    type: 'message_delta',
    delta: { stop_reason: message.stop_reason, stop_sequence: null, stop_details: null, container: null },
    usage: {
      output_tokens,
      input_tokens: inputUsage.input_tokens,
      cache_creation_input_tokens: inputUsage.cache_creation_input_tokens,
      cache_read_input_tokens: inputUsage.cache_read_input_tokens,
    },
  });
  send('message_stop', { type: 'message_stop' });
  res.end();
}

function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

function sendError(
  res: ServerResponse,
  requestId: string,
  status: number,
  type: string,
  message: string,
  headers: Record<string, string> = {},
): void {
  const body = { type: 'error', error: { type, message }, request_id: requestId };
  sendJson(res, status, body, { 'request-id': requestId, ...headers });
}

// ---------------------------------------------------------------------------------------------------------
// The server

const DEFAULT_CONTEXT_WINDOW = 200_000;

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
  const contextWindow = options.contextWindow ?? DEFAULT_CONTEXT_WINDOW;
  const cache = new PromptCache();
  const ids = { message: counterId('msg_01'), tool: counterId('toolu_01'), request: counterId('req_01') };
  const timers = new Set<NodeJS.Timeout>();
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
    const refuse = (message: string): void => {
      if (record) server.violations.push({ index: record.index, message });
      sendError(res, requestId, 400, 'invalid_request_error', message);
    };

    if (options.latencyMs) await pause(options.latencyMs);
    if (!authorized(req.headers, options.apiKey))
      return sendError(res, requestId, 401, 'authentication_error', 'invalid x-api-key');
    if (!req.headers['anthropic-version']) return refuse('anthropic-version: header is required');
    if (!parsed.ok) return refuse('There was an error parsing the body as JSON');
    const problem = findViolation(body, endpoint);
    if (problem) return refuse(problem);
    const measure = cache.measure(body as Json);
    if (measure.total > contextWindow)
      return refuse(`prompt is too long: ${measure.total} tokens > ${contextWindow} maximum`);
    if (endpoint === 'count_tokens') return sendJson(res, 200, { input_tokens: measure.total });

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

    const content = (response.content ?? []).map((block) => wireBlock(block, ids.tool));
    const usage: ScriptedUsage = {
      input_tokens: measure.total - measure.read - measure.creation,
      cache_creation_input_tokens: measure.creation,
      cache_read_input_tokens: measure.read,
      output_tokens: Math.max(1, estimateTokens(content)),
      ...response.usage,
    };
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
      usage: wireUsage(usage),
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
