// Pure arithmetic for `npm run bench`: medians, write-rate windows, and prompt-prefix reuse.
import { estimateTokens } from '../anthropic/server.js';

export const mean = (values: readonly number[]): number => values.reduce((a, b) => a + b, 0) / values.length;
/** The sum, with missing entries (a turn with no tool call) counted as 0. */
export const sum = (values: readonly (number | undefined)[]): number =>
  values.reduce<number>((a, b) => a + (b ?? 0), 0);

export function median(values: readonly number[]): number {
  if (values.length === 0) throw new RangeError('median of no values');
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** The most timestamps that fall in any window [t, t + windowMs); windows start at a timestamp. */
/** Least-squares line through the points: y ≈ intercept + slope · x. Needs two distinct x values. */
export function linearFit(
  xs: readonly number[],
  ys: readonly number[],
): { intercept: number; slope: number } {
  const n = xs.length;
  if (n !== ys.length || new Set(xs).size < 2) throw new RangeError('linearFit needs two distinct x values');
  const meanX = xs.reduce((a, b) => a + b, 0) / n;
  const meanY = ys.reduce((a, b) => a + b, 0) / n;
  let covariance = 0;
  let variance = 0;
  xs.forEach((x, i) => {
    covariance += (x - meanX) * (ys[i]! - meanY);
    variance += (x - meanX) ** 2;
  });
  const slope = covariance / variance;
  return { intercept: meanY - slope * meanX, slope };
}

export function maxInWindow(times: readonly number[], windowMs: number): number {
  const sorted = [...times].sort((a, b) => a - b);
  let best = 0;
  let end = 0;
  for (let start = 0; start < sorted.length; start++) {
    while (end < sorted.length && sorted[end]! < sorted[start]! + windowMs) end++;
    best = Math.max(best, end - start);
  }
  return best;
}

/** The shortest gap between consecutive timestamps, or undefined with fewer than two. */
export function minGap(times: readonly number[]): number | undefined {
  const sorted = [...times].sort((a, b) => a - b);
  let best: number | undefined;
  for (let i = 1; i < sorted.length; i++) best = Math.min(best ?? Infinity, sorted[i]! - sorted[i - 1]!);
  return best;
}

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

interface PromptBlock {
  /** Where it sits and what it holds, without cache markers. */
  key: string;
  tokens: number;
  marked: boolean;
}

/** A block without `cache_control`, also inside a tool_result's content; and whether it had one. */
function unmark(block: unknown): { plain: unknown; marked: boolean } {
  if (!isObject(block)) return { plain: block, marked: false };
  const { cache_control: marker, ...plain } = block;
  let marked = marker != null;
  if (Array.isArray(plain.content)) {
    plain.content = plain.content.map((inner: unknown) => {
      const result = unmark(inner);
      marked ||= result.marked;
      return result.plain;
    });
  }
  return { plain, marked };
}

/** A request body as the flat block sequence a prompt cache sees: tools, system blocks, message blocks. */
export function promptBlocks(body: unknown): PromptBlock[] {
  if (!isObject(body)) return [];
  const blocks: PromptBlock[] = [];
  const add = (section: string, block: unknown): void => {
    const { plain, marked } = unmark(block);
    blocks.push({ key: JSON.stringify([section, plain]), tokens: estimateTokens(plain), marked });
  };
  for (const tool of Array.isArray(body.tools) ? body.tools : []) add('tool', tool);
  const system = typeof body.system === 'string' ? [{ type: 'text', text: body.system }] : body.system;
  for (const block of Array.isArray(system) ? system : []) add('system', block);
  for (const message of Array.isArray(body.messages) ? body.messages : []) {
    if (!isObject(message)) continue;
    const content =
      typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content;
    for (const block of Array.isArray(content) ? content : []) add(String(message.role), block);
  }
  return blocks;
}

export interface PrefixReuse {
  /** Tokens, over all requests, before each request's last cache marker that repeat the previous request. */
  cacheable: number;
  /** All input tokens of all requests. */
  total: number;
  share: number;
}

/**
 * For each request: the tokens up to and including its last marked block that match, block for block,
 * the start of the previous request. The first request has nothing before it to reuse.
 */
export function prefixReuse(bodies: readonly unknown[]): PrefixReuse {
  let cacheable = 0;
  let total = 0;
  let previous: PromptBlock[] = [];
  for (const body of bodies) {
    const blocks = promptBlocks(body);
    total += blocks.reduce((sum, block) => sum + block.tokens, 0);
    const lastMark = blocks.findLastIndex((block) => block.marked);
    for (let i = 0; i <= lastMark && i < previous.length && blocks[i]!.key === previous[i]!.key; i++)
      cacheable += blocks[i]!.tokens;
    previous = blocks;
  }
  return { cacheable, total, share: total === 0 ? 0 : cacheable / total };
}

/** A request as a span of time: sent (arrived at the server) and answered. */
export interface Span {
  at: number;
  answeredAt: number;
}

/**
 * The most requests that ran one after another (each sent once the one before it was answered) among those
 * that started at or after `from` and were answered by `to`: the sequential round trips on that path.
 */
export function sequentialRoundTrips(spans: readonly Span[], from: number, to: number): number {
  const inside = spans
    .filter((s) => s.at >= from && s.answeredAt > 0 && s.answeredAt <= to)
    .sort((a, b) => a.at - b.at);
  const depth: number[] = [];
  inside.forEach((span, i) => {
    let before = 0;
    for (let j = 0; j < i; j++) if (inside[j]!.answeredAt <= span.at) before = Math.max(before, depth[j]!);
    depth.push(before + 1);
  });
  return Math.max(0, ...depth);
}
