// The bytes of a Messages request, encoded one message at a time. Every request re-sends the whole
// conversation, but history only grows, and context clearing replaces whole messages with new objects, so
// each message's JSON is worked out once and reused by every later request: a request costs its new
// turns plus one copy of the bytes, not a fresh encoding of the whole run. Encoded messages are frozen,
// so a change in place (which would send stale bytes) throws instead.
import type Anthropic from '@anthropic-ai/sdk';

type StreamingParams = Anthropic.MessageCreateParamsStreaming;

const encodings = new WeakMap<object, Uint8Array>();
const utf8 = new TextEncoder();
const COMMA = utf8.encode(',');
const CLOSE = utf8.encode(']}');

/** The request body as the SDK would send it for `params`, as UTF-8 JSON. */
export function encodeRequestBody(params: StreamingParams): Uint8Array {
  const { messages, ...fields } = params;
  const parts: Uint8Array[] = [];
  let separator = '{';
  for (const [key, value] of Object.entries(fields)) {
    if (value === undefined) continue;
    parts.push(utf8.encode(`${separator}${JSON.stringify(key)}:`));
    parts.push(
      typeof value === 'object' && value !== null ? encoded(value) : utf8.encode(JSON.stringify(value)),
    );
    separator = ',';
  }
  parts.push(utf8.encode(`${separator}"messages":[`));
  messages.forEach((message, index) => {
    if (index > 0) parts.push(COMMA);
    parts.push(encoded(message));
  });
  parts.push(CLOSE);
  return concat(parts);
}

function encoded(value: object): Uint8Array {
  let bytes = encodings.get(value);
  if (!bytes) {
    bytes = utf8.encode(JSON.stringify(value));
    deepFreeze(value);
    encodings.set(value, bytes);
  }
  return bytes;
}

function concat(parts: readonly Uint8Array[]): Uint8Array {
  let length = 0;
  for (const part of parts) length += part.length;
  const out = Buffer.allocUnsafe(length); // every byte is written below
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

function deepFreeze(value: unknown): void {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return;
  Object.freeze(value);
  for (const child of Object.values(value)) deepFreeze(child);
}
