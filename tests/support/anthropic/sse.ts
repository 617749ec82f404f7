// The wire format of a Messages response: the JSON message, its SSE stream, and the API's error body.
import type { ServerResponse } from 'node:http';
import type { Json, ScriptedContent, ScriptedResponse, ScriptedUsage } from './types.js';

export type WireBlock = Json & { type: string };

export interface WireMessage {
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
  /** `sonnet-5-5` mode: the thinking blocks `drop_block` removed from the request. */
  input_transformations?: Json[];
  usage: Json & ScriptedUsage;
}

export function wireUsage(usage: ScriptedUsage): Json & ScriptedUsage {
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

export function wireBlock(block: ScriptedContent, newToolId: () => string): WireBlock {
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
    case 'tool_search':
      throw new Error('a tool search is answered by the server (tool-search.ts), not sent as written');
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
  if (block.type === 'tool_use' || block.type === 'server_tool_use') return { ...block, input: {} };
  if (block.type === 'thinking') return { ...block, thinking: '', signature: '' };
  // At a threshold the summary follows in one compaction_delta; on demand the block arrives whole.
  if (block.type === 'compaction' && block.signature === undefined)
    return { ...block, content: null, encrypted_content: null };
  return block;
}

function blockDeltas(block: WireBlock, chunkSize: number | undefined): Json[] {
  switch (block.type) {
    case 'text':
      return pieces(String(block.text), chunkSize).map((t) => ({ type: 'text_delta', text: t }));
    case 'tool_use':
    case 'server_tool_use': {
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
    case 'compaction':
      return block.signature === undefined
        ? [{ type: 'compaction_delta', content: block.content, encrypted_content: block.encrypted_content }]
        : [];
    default:
      return [];
  }
}

export function writeStream(
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
      ...(inputUsage.iterations ? { iterations: inputUsage.iterations } : {}),
    },
  });
  send('message_stop', { type: 'message_stop' });
  res.end();
}

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

export function sendError(
  res: ServerResponse,
  requestId: string,
  status: number,
  type: string,
  message: string,
  headers: Record<string, string> = {},
  code?: string,
): void {
  const details = code ? { details: { error_code: code } } : {};
  const body = { type: 'error', error: { type, message, ...details }, request_id: requestId };
  sendJson(res, status, body, { 'request-id': requestId, ...headers });
}
