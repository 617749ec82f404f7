// Secret redaction: known secret values plus the shapes of GitHub and Anthropic tokens become '***', in
// whole texts and in pieces kept around a cut (see redactSlice).

const MASK = '***';
const MIN_SECRET_LENGTH = 6;
/**
 * Characters of context a token shape needs to be recognised next to a cut: more than the longest shape's
 * lookbehind (`authorization: bearer `, whitespace bounded for this reason).
 */
const SHAPE_CONTEXT = 100;
/** Every character any token shape is made of. A cut between two of them may be a cut through a token. */
const TOKEN_CHAR = /[A-Za-z0-9+/=._-]/;

/** Token shapes worth hiding even when their value was never registered. */
const TOKEN_SHAPES: readonly RegExp[] = [
  /gh[pousr]_[A-Za-z0-9]{36,}/g,
  /github_pat_[A-Za-z0-9_]{22,}/g,
  /sk-ant-[A-Za-z0-9_-]{20,}/g,
  // The credential actions/checkout persists for git (`AUTHORIZATION: basic <base64>`), and bearer tokens.
  /(?<=\bauthorization:\s{0,20}(?:basic|bearer|token)\s{1,20})[A-Za-z0-9+/=._-]{8,}/gi,
];

type Span = [start: number, end: number];

export class Redactor {
  /** Longest first, so that a secret containing another is never left half visible. */
  #secrets: string[] = [];

  /** Registers a secret value; empty and short (< 6 chars) values are ignored as too likely to be words. */
  add(secret: string | undefined): void {
    const value = secret?.trim();
    if (!value || value.length < MIN_SECRET_LENGTH || this.#secrets.includes(value)) return;
    this.#secrets = [...this.#secrets, value].sort((a, b) => b.length - a.length);
  }

  /** Replaces every known secret and every token-shaped string with '***'. */
  redact(text: string): string {
    return this.redactSlice(text, 0, text.length).text;
  }

  /** Characters a piece needs on the far side of each cut for redactSlice to see every secret whole. */
  get margin(): number {
    return Math.max(SHAPE_CONTEXT, this.#secrets[0]?.length ?? 0);
  }

  /**
   * `text[from, to)` redacted, where `from > 0` and `to < text.length` are cuts and `text` holds at least
   * `margin` characters beyond each cut (or everything there is). Nothing of a secret crossing a cut is
   * kept: the kept side of a known secret is dropped (it lies whole in `text`, being no longer than the
   * margin), and so is a run of token characters that a cut splits (a token of any length crossing the
   * cut is such a run). Returns the text and the part of `text` it stands for, `[start, end)`.
   */
  redactSlice(text: string, from: number, to: number): { text: string; start: number; end: number } {
    const spans = this.#spans(text);
    let [start, end] = [from, to];
    for (let moved = true; moved && start < end;) {
      const before = [start, end];
      if (start > 0) start = pastCrossings(text, start, spans, 'forward');
      if (end < text.length) end = pastCrossings(text, end, spans, 'back');
      moved = start !== before[0] || end !== before[1];
    }
    if (start >= end) return { text: '', start: from, end: from };
    let out = '';
    let cursor = start;
    for (const [s, e] of spans) {
      if (e <= start || s >= end) continue;
      out += text.slice(cursor, s) + MASK;
      cursor = e;
    }
    return { text: out + text.slice(cursor, end), start, end };
  }

  #spans(text: string): Span[] {
    return mergeSpans([...this.#secretSpans(text), ...shapeSpans(text)]);
  }

  // Every occurrence of every secret, overlapping ones included: the union is masked, so two secrets
  // that share characters are both hidden completely.
  *#secretSpans(text: string): Generator<Span> {
    for (const secret of this.#secrets) {
      for (let at = text.indexOf(secret); at !== -1; at = text.indexOf(secret, at + 1)) {
        yield [at, at + secret.length];
      }
    }
  }
}

function* shapeSpans(text: string): Generator<Span> {
  for (const shape of TOKEN_SHAPES) {
    for (const match of text.matchAll(shape)) yield [match.index, match.index + match[0].length];
  }
}

/**
 * Where a cut at `at` may stand once nothing it splits is kept: moved past a secret span that crosses it,
 * then past a run of token characters that it splits, in `direction` (away from the kept side's far end).
 */
function pastCrossings(
  text: string,
  at: number,
  spans: readonly Span[],
  direction: 'forward' | 'back',
): number {
  const crossing = spans.find(([s, e]) => s < at && at < e);
  if (crossing) return direction === 'forward' ? crossing[1] : crossing[0];
  const isToken = (i: number) => i >= 0 && i < text.length && TOKEN_CHAR.test(text.charAt(i));
  if (!isToken(at - 1) || !isToken(at)) return at;
  let cut = at;
  if (direction === 'forward') while (isToken(cut)) cut++;
  else while (isToken(cut - 1)) cut--;
  return cut;
}

/** Sorts spans and joins the overlapping or touching ones. */
function mergeSpans(spans: Span[]): Span[] {
  spans.sort((a, b) => a[0] - b[0]);
  const merged: Span[] = [];
  for (const [start, end] of spans) {
    const last = merged.at(-1);
    if (last && start <= last[1]) last[1] = Math.max(last[1], end);
    else merged.push([start, end]);
  }
  return merged;
}

/** The process-wide redactor: every secret the action learns is added here. */
export const redactor = new Redactor();

/**
 * `text` redacted, then cut to at most `max` code points (the last one `…` when cut). Always in this order:
 * a cut made first can split a secret so that neither half is recognised, and its first half goes out.
 */
export function redactAndCut(text: string, max: number, redact = (t: string) => redactor.redact(t)): string {
  const chars = Array.from(redact(text));
  return chars.length > max
    ? `${chars
        .slice(0, max - 1)
        .join('')
        .trimEnd()}…`
    : chars.join('');
}

/**
 * `text` with the user and password of every URL in it removed (`https://user:pass@host/` → `https://host/`),
 * and with `query`, every URL's query too (`https://host/path?token=…` → `https://host/path`: a token there
 * has no telling name, `sig=`, `code=`). A URL is a scheme (a letter at a word's start, then letters, digits,
 * `+`, `.`, `-`), `://`, and what follows up to whitespace, a quote or `<`/`>`.
 *
 * One pass: each `://` is found once, its scheme read back and its login read forward only as far as the
 * characters they may hold, which no other `://` shares, so no character is read more than a few times (the
 * pattern `\b[a-z][\w+.-]*://` reads a run of such characters again from each word start in it: quadratic).
 */
export function withoutUrlCredentials(text: string, { query = false } = {}): string {
  const pieces: string[] = [];
  let done = 0;
  // The query of the URL read last, dropped once no `://` before its `?` is left (their logins go first).
  let drop: { from: number; to: number } | undefined;
  let urlEnd = 0;
  const dropQuery = () => {
    pieces.push(text.slice(done, drop!.from));
    [done, drop] = [drop!.to, undefined];
  };
  for (let at = text.indexOf('://'); at >= 0; at = text.indexOf('://', Math.max(at + 3, done))) {
    if (drop && at >= drop.from) {
      dropQuery();
      if (at < done) continue;
    }
    let start = at;
    while (start > 0 && /[\w+.-]/.test(text[start - 1]!)) start--;
    let scheme = false;
    for (let i = start; i < at && !scheme; i++)
      scheme = /[a-z]/i.test(text[i]!) && (i === 0 || !/\w/.test(text[i - 1]!));
    if (!scheme) continue;
    let end = at + 3;
    while (end < text.length && !/[\s/@'"]/.test(text[end]!)) end++;
    if (text[end] === '@') {
      pieces.push(text.slice(done, at + 3));
      done = end + 1;
    }
    // The URL's end, and its first `?`, read once for all the `://` in it.
    if (!query || at < urlEnd) continue;
    let mark = -1;
    for (
      urlEnd = done > at ? done : at + 3;
      urlEnd < text.length && !/[\s'"<>]/.test(text[urlEnd]!);
      urlEnd++
    )
      if (mark < 0 && text[urlEnd] === '?') mark = urlEnd;
    if (mark >= 0) drop = { from: mark, to: urlEnd };
  }
  if (drop) dropQuery();
  pieces.push(text.slice(done));
  return pieces.join('');
}
