// Token estimates and prompt caching as the scripted model server plays them, and the shapes they share
// with the request rules: messages merged into turns, and the cacheable units of a prompt.
import { createHash } from 'node:crypto';
import { expandedDefinitions } from './tool-search.js';
import { formatOf, sizeOf } from './image-size.js';
import type { Json } from './types.js';

/** What the API's vision guide says an image costs: width × height / 750, at most about 1,600 tokens. */
const MAX_IMAGE_TOKENS = 1_600;

function imageTokens(data: string): number {
  // The header is near the start (a JPEG's frame header may follow some kilobytes of EXIF data).
  const head = Buffer.from(data.slice(0, 65_536), 'base64');
  const format = formatOf(head);
  const size = format ? sizeOf(head, format) : undefined;
  return size ? Math.min(Math.ceil((size.width * size.height) / 750), MAX_IMAGE_TOKENS) : MAX_IMAGE_TOKENS;
}

/** An image's base64 counts as its tokens, not as its characters. */
function imageAsTokens(_key: string, value: unknown): unknown {
  const source = value as { type?: unknown; data?: unknown } | null;
  if (source?.type === 'base64' && typeof source.data === 'string')
    return { ...source, data: 'x'.repeat(imageTokens(source.data) * 4) };
  return value;
}

/** Deterministic token estimate: a quarter of the characters of the string or of its JSON (images by size). */
export function estimateTokens(value: unknown): number {
  if (value === undefined) return 0;
  let chars = typeof value === 'string' ? value : (JSON.stringify(value) ?? '');
  // Only a value that holds an image is measured again (a replacer slows every other measure down).
  if (typeof value !== 'string' && chars.includes('"base64"'))
    chars = JSON.stringify(value, imageAsTokens) ?? '';
  return Math.ceil(chars.length / 4);
}

export const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

export const asArray = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);

/** One cacheable piece of the prompt: a tool, a system block or a message block. */
export interface PromptUnit {
  key: string;
  tokens: number;
  breakpoint: boolean;
}

/** A user or assistant turn after merging consecutive same-role messages, as the API does. */
export interface Turn {
  role: string;
  blocks: { block: Json; msgIndex: number; blockIndex: number }[];
}

export function mergeTurns(messages: unknown[]): Turn[] {
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

export const systemBlocks = (system: unknown): unknown[] =>
  typeof system === 'string' ? (system === '' ? [] : [{ type: 'text', text: system }]) : asArray(system);

/** A tool_result may carry cache_control on itself and on the blocks inside it. */
export function cacheMarks(block: unknown): number {
  if (!isObject(block)) return 0;
  const own = block.cache_control != null ? 1 : 0;
  const nested =
    block.type === 'tool_result' ? asArray(block.content).reduce<number>((n, b) => n + cacheMarks(b), 0) : 0;
  return own + nested;
}

/** The cache key ignores where the markers sit, so a marker that moves does not break the prefix. */
export function withoutCacheControl(block: unknown): unknown {
  if (!isObject(block)) return block;
  const { cache_control: _marker, ...rest } = block;
  if (block.type === 'tool_result' && Array.isArray(rest.content))
    rest.content = rest.content.map(withoutCacheControl);
  return rest;
}

/** Tools, then system, then messages: the order in which the API caches a prompt. */
export function promptUnits(body: Json): PromptUnit[] {
  const units: PromptUnit[] = [];
  const add = (kind: string, value: unknown): void => {
    const plain = withoutCacheControl(value);
    units.push({
      key: JSON.stringify([kind, plain]),
      tokens: estimateTokens(plain),
      breakpoint: cacheMarks(value) > 0,
    });
  };
  // A deferred tool is not in the prompt: it joins the conversation where a tool search found it.
  for (const tool of asArray(body.tools))
    if (!isObject(tool) || tool.defer_loading !== true) add('tool', tool);
  for (const block of systemBlocks(body.system)) add('system', block);
  for (const turn of mergeTurns(asArray(body.messages)))
    for (const { block } of turn.blocks) {
      add(turn.role, block);
      const unit = units.at(-1)!;
      for (const tool of expandedDefinitions(block, body)) unit.tokens += estimateTokens(tool);
    }
  return units;
}

/** The estimated input tokens of a request body: the sum of its tools, system blocks and message blocks. */
export function estimateInputTokens(body: unknown): number {
  return isObject(body) ? promptUnits(body).reduce((sum, unit) => sum + unit.tokens, 0) : 0;
}

export interface PromptMeasure {
  total: number;
  read: number;
  creation: number;
  /** Digests of the prefixes that end at this request's breakpoints: cache entries it writes. */
  writes: string[];
}

/** The API looks back this many blocks from a breakpoint for an earlier cache entry. */
const CACHE_LOOKBACK_BLOCKS = 20;

/** Remembers the prefixes earlier requests wrote at their breakpoints, and measures hits against them. */
export class PromptCache {
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
