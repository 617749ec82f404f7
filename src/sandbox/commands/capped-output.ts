// Bounded capture of text: keeps a head and a tail and counts what fell in between, so memory stays
// fixed however much a command prints. Given a redaction, it redacts across its own cuts: each kept piece
// is redacted with `margin` characters of context beyond its cut, so no secret is ever seen in halves.
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

/** What the capture needs of a redactor (src/text/redact.ts has the action's). */
export interface Redaction {
  /** `text` with every secret masked. */
  redact(text: string): string;
  /** Characters of context beyond a cut that redactSlice needs (more than 0). */
  readonly margin: number;
  /** `text[from, to)` redacted, nothing kept of a secret that a cut (`from > 0`, `to < length`) crosses. */
  redactSlice(text: string, from: number, to: number): { text: string; start: number; end: number };
}

/** The cut nearest `at` that keeps no half of a surrogate pair on the `kept` side. */
function pairSafe(text: string, at: number, kept: 'before' | 'after'): number {
  const edge = kept === 'before' ? text.slice(at - 1, at) : text.slice(at, at + 1);
  if (edge === '' || dropHalfPair(edge, kept === 'before' ? 'end' : 'start') !== '') return at;
  return kept === 'before' ? at - 1 : at + 1;
}

export class CappedOutput {
  readonly headLimit: number;
  readonly tailLimit: number;
  /** The head and the tail as kept, each with the redaction's margin beyond the cut. */
  readonly #headRoom: number;
  readonly #tailRoom: number;
  #head = '';
  /** May hold up to twice tailRoom between trims, so appending stays cheap. */
  #tail = '';
  #total = 0;
  readonly #decoder = new StringDecoder('utf8');

  /**
   * `hint`, if given, ends the marker: what the reader can do to see what was cut (COMMAND_OUTPUT_HINT for
   * a command's output).
   */
  constructor(
    limit = DEFAULT_OUTPUT_LIMIT,
    private readonly redaction?: Redaction,
    private readonly hint?: string,
  ) {
    if (!Number.isInteger(limit) || limit < 2) {
      throw new RangeError(`limit must be an integer >= 2: ${limit}`);
    }
    ({ head: this.headLimit, tail: this.tailLimit } = splitLimit(limit));
    const margin = redaction?.margin ?? 0;
    [this.#headRoom, this.#tailRoom] = [this.headLimit + margin, this.tailLimit + margin];
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
    const complete = this.#head.length + this.#tail.length === this.#total;
    const whole = complete ? this.#head + this.#tail : '';
    if (!this.truncated) return this.redaction ? this.redaction.redact(whole) : whole;
    // Each piece with its margin: the whole text when nothing was lost, else the buffers.
    const headText = complete ? whole : this.#head;
    const tailText = complete ? whole : this.#tail.slice(-this.#tailRoom);
    const headEnd = pairSafe(headText, this.headLimit, 'before');
    const tailStart = pairSafe(tailText, tailText.length - this.tailLimit, 'after');
    if (!this.redaction) {
      const [head, tail] = [headText.slice(0, headEnd), tailText.slice(tailStart)];
      return this.#withMarker(head, head.length, tail, tail.length);
    }
    const head = this.redaction.redactSlice(headText, 0, headEnd);
    const tail = this.redaction.redactSlice(tailText, tailStart, tailText.length);
    return this.#withMarker(head.text, head.end, tail.text, tailText.length - tail.start);
  }

  /** The pieces joined by a marker; the counts are of the stream's characters each piece stands for. */
  #withMarker(head: string, headChars: number, tail: string, tailChars: number): string {
    const cut = this.#total - headChars - tailChars;
    return (
      head +
      `\n... [${formatCount(cut)} characters cut: showing the first ${formatCount(headChars)}` +
      ` and the last ${formatCount(tailChars)}${this.hint ? `; ${this.hint}` : ''}] ...\n` +
      tail
    );
  }

  #append(text: string): void {
    if (text.length === 0) return;
    this.#total += text.length;
    const room = this.#headRoom - this.#head.length;
    if (room > 0) {
      this.#head += text.slice(0, room);
      text = text.slice(room);
    }
    if (text.length === 0) return;
    if (text.length >= this.#tailRoom) {
      this.#tail = text.slice(-this.#tailRoom);
      return;
    }
    this.#tail += text;
    if (this.#tail.length > 2 * this.#tailRoom) this.#tail = this.#tail.slice(-this.#tailRoom);
  }
}

/** How to see what a command's capped output left out: the marker's last words for bash and verify output. */
export const COMMAND_OUTPUT_HINT =
  'to see the rest, narrow the command (grep -n, head, tail, one test file) or send its output to a file ' +
  'under /tmp (`cmd > /tmp/out.txt 2>&1`) and search that with grep -n';

/** Caps a string the same way: head + marker + tail when it is longer than `limit`. */
export function capText(text: string, limit = DEFAULT_OUTPUT_LIMIT, redaction?: Redaction): string {
  const capped = new CappedOutput(limit, redaction);
  capped.write(text);
  return capped.toString();
}
