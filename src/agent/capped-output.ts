// Bounded capture of text: keeps a head and a tail and counts what fell in between, so memory stays
// fixed however much a command prints.
import { StringDecoder } from 'node:string_decoder';

export const DEFAULT_OUTPUT_LIMIT = 50_000;
/** Share of the limit given to the head; the tail gets the rest (errors tend to come last). */
const HEAD_SHARE = 0.4;

const numberFormat = new Intl.NumberFormat('en-US');
export const formatCount = (n: number): string => numberFormat.format(n);

/** Removes a lone half of a surrogate pair that a slice left at one edge of `text`. */
export function dropHalfPair(text: string, edge: 'start' | 'end'): string {
  if (text === '') return text;
  const code = text.charCodeAt(edge === 'end' ? text.length - 1 : 0);
  if (edge === 'end') return code >= 0xd800 && code <= 0xdbff ? text.slice(0, -1) : text;
  return code >= 0xdc00 && code <= 0xdfff ? text.slice(1) : text;
}

/** How a limit splits into the characters kept from the start and from the end. */
export function splitLimit(limit: number): { head: number; tail: number } {
  const head = Math.floor(limit * HEAD_SHARE);
  return { head, tail: limit - head };
}

export class CappedOutput {
  readonly headLimit: number;
  readonly tailLimit: number;
  #head = '';
  /** May hold up to twice tailLimit between trims, so appending stays cheap. */
  #tail = '';
  #total = 0;
  readonly #decoder = new StringDecoder('utf8');

  constructor(limit = DEFAULT_OUTPUT_LIMIT) {
    if (!Number.isInteger(limit) || limit < 2) {
      throw new RangeError(`limit must be an integer >= 2: ${limit}`);
    }
    ({ head: this.headLimit, tail: this.tailLimit } = splitLimit(limit));
  }

  /** Buffers are decoded as UTF-8; a character split across chunks is joined again. */
  write(chunk: Buffer | string): void {
    this.#append(typeof chunk === 'string' ? chunk : this.#decoder.write(chunk));
  }

  /** Flushes a trailing incomplete UTF-8 sequence (as U+FFFD). Call once the source is done. */
  end(): void {
    this.#append(this.#decoder.end());
  }

  /** Characters seen so far. */
  get totalChars(): number {
    return this.#total;
  }

  get truncated(): boolean {
    return this.#total > this.headLimit + this.tailLimit;
  }

  toString(): string {
    const tail = this.#tail.length > this.tailLimit ? this.#tail.slice(-this.tailLimit) : this.#tail;
    if (!this.truncated) return this.#head + tail;
    return this.#withMarker(dropHalfPair(this.#head, 'end'), dropHalfPair(tail, 'start'));
  }

  #withMarker(head: string, tail: string): string {
    const cut = this.#total - head.length - tail.length;
    return (
      head +
      `\n... [${formatCount(cut)} characters cut: showing the first ${formatCount(head.length)}` +
      ` and the last ${formatCount(tail.length)}] ...\n` +
      tail
    );
  }

  #append(text: string): void {
    if (text.length === 0) return;
    this.#total += text.length;
    const room = this.headLimit - this.#head.length;
    if (room > 0) {
      this.#head += text.slice(0, room);
      text = text.slice(room);
    }
    if (text.length === 0) return;
    if (text.length >= this.tailLimit) {
      this.#tail = text.slice(-this.tailLimit);
      return;
    }
    this.#tail += text;
    if (this.#tail.length > 2 * this.tailLimit) this.#tail = this.#tail.slice(-this.tailLimit);
  }
}

/** Caps a string the same way: head + marker + tail when it is longer than `limit`. */
export function capText(text: string, limit = DEFAULT_OUTPUT_LIMIT): string {
  const capped = new CappedOutput(limit);
  capped.write(text);
  return capped.toString();
}
