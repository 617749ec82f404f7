// The request rules the scripted model server enforces: each check returns the API's 400 message, or
// undefined when the request passes.
import { asArray, cacheMarks, isObject, mergeTurns, systemBlocks, type Turn } from './cache.js';
import { formatOf, sizeOf } from './image-size.js';
import type { Json } from './types.js';

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

const IMAGE_TYPES = ['image/jpeg', 'image/png', 'image/gif', 'image/webp'];
/** 5 MB of base64 per image: not in the vision guide, but the limit the API's 400 answers name. */
const MAX_IMAGE_BASE64 = 5 * 1024 * 1024;
/**
 * The vision guide (https://platform.claude.com/docs/en/build-with-claude/vision, "General limits"): an
 * image may be at most 8000 × 8000 px; at most 100 images a request for models with a 200k-token context
 * (600 for the others: the fake holds every model to the lower number), and when a request carries more than
 * 20 images, the limit on each drops to 2000 × 2000 px. It holds for all four formats: the fake reads every
 * one's header (./image-size.ts).
 */
const MAX_IMAGE_PIXELS_EDGE = 8000;
const MAX_IMAGES = 100;
const MANY_IMAGES = 20;
const MANY_IMAGES_PIXELS_EDGE = 2000;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** The API's checks of an image block, with its messages (as seen in its 400 answers). */
function imageProblem(
  block: Record<string, unknown>,
  role: string,
  at: string,
  manyImages: boolean,
): string | undefined {
  if (role !== 'user') return `${at}: image blocks can only appear in user messages`;
  const source = block.source;
  if (!isObject(source)) return `${at}.image.source: Field required`;
  if (source.type !== 'base64') return undefined; // url and file sources are not used by the action
  const where = `${at}.image.source.base64`;
  if (typeof source.media_type !== 'string' || !IMAGE_TYPES.includes(source.media_type))
    return `${where}.media_type: Input should be 'image/jpeg', 'image/png', 'image/gif' or 'image/webp'`;
  if (
    typeof source.data !== 'string' ||
    source.data === '' ||
    !BASE64.test(source.data) ||
    source.data.length % 4 !== 0
  )
    return `${where}.data: Invalid base64 data`;
  if (source.data.length > MAX_IMAGE_BASE64)
    return `${where}: image exceeds 5 MB maximum: ${source.data.length} bytes > ${MAX_IMAGE_BASE64} bytes`;
  const bytes = Buffer.from(source.data, 'base64');
  const format = formatOf(bytes);
  if (format !== source.media_type)
    return `${where}.data: Image does not match the provided media type ${source.media_type}`;
  const size = sizeOf(bytes, format);
  // Bytes that start like an image but whose size cannot be read are not decoded by the API either: it
  // answers this (seen in its 400 answers; the errors page does not list image messages).
  if (!size || size.width === 0 || size.height === 0) return 'Could not process image';
  const edge = Math.max(size.width, size.height);
  if (edge > MAX_IMAGE_PIXELS_EDGE)
    return `${where}.data: At least one of the image dimensions exceed max allowed size: ${MAX_IMAGE_PIXELS_EDGE} pixels`;
  if (manyImages && edge > MANY_IMAGES_PIXELS_EDGE)
    return `${where}.data: At least one of the image dimensions exceed max allowed size for many-image requests: ${MANY_IMAGES_PIXELS_EDGE} pixels`;
  return undefined;
}

function checkBlock(block: unknown, role: string, at: string, manyImages: boolean): string | undefined {
  if (!isObject(block) || typeof block.type !== 'string') return `${at}.type: Field required`;
  switch (block.type) {
    case 'text':
      return textProblem('messages', block.text);
    case 'image':
      return imageProblem(block, role, at, manyImages);
    case 'tool_use':
      if (role !== 'assistant') return `${at}: \`tool_use\` blocks can only appear in assistant messages`;
      if (typeof block.id !== 'string' || block.id === '') return `${at}.tool_use.id: Field required`;
      if (typeof block.name !== 'string') return `${at}.tool_use.name: Field required`;
      if (!isObject(block.input)) return `${at}.tool_use.input: Input should be a valid dictionary`;
      return undefined;
    case 'tool_result':
      if (role !== 'user') return `${at}: \`tool_result\` blocks can only appear in user messages`;
      if (typeof block.tool_use_id !== 'string') return `${at}.tool_result.tool_use_id: Field required`;
      for (const [k, inner] of asArray(block.content).entries()) {
        if (isObject(inner) && inner.type === 'text') {
          const problem = textProblem('messages', inner.text);
          if (problem) return problem;
        }
        if (isObject(inner) && inner.type === 'image') {
          const problem = imageProblem(inner, role, `${at}.tool_result.content.${k}`, manyImages);
          if (problem) return problem;
        }
      }
      return undefined;
    default:
      return undefined;
  }
}

/** Image blocks in the messages, those inside tool results included. */
function countImages(messages: unknown[]): number {
  let images = 0;
  for (const message of messages) {
    if (!isObject(message)) continue;
    for (const block of asArray(message.content)) {
      if (!isObject(block)) continue;
      if (block.type === 'image') images++;
      if (block.type === 'tool_result')
        images += asArray(block.content).filter((inner) => isObject(inner) && inner.type === 'image').length;
    }
  }
  return images;
}

function checkMessageShapes(messages: unknown[]): string | undefined {
  const images = countImages(messages);
  // Our wording: the limit is the vision guide's, the API's own message for it is not documented.
  if (images > MAX_IMAGES) return `messages: too many images in one request: ${images} > ${MAX_IMAGES}`;
  const manyImages = images > MANY_IMAGES;
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
      const problem = checkBlock(block, role, `messages.${i}.content.${j}`, manyImages);
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
  // A compaction block may open the conversation, in an assistant message of its own or first in the first.
  const opensWithSummary = turns[0]?.blocks[0]?.block.type === 'compaction';
  if (turns[0]?.role !== 'user' && !opensWithSummary)
    return 'messages: first message must use the "user" role';
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
