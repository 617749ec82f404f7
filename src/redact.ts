// Secret redaction: known secret values plus the shapes of GitHub and Anthropic tokens become '***'.

const MASK = '***';
const MIN_SECRET_LENGTH = 6;

/** Token shapes worth hiding even when their value was never registered. */
const TOKEN_SHAPES: readonly RegExp[] = [
  /gh[pousr]_[A-Za-z0-9]{36,}/g,
  /github_pat_[A-Za-z0-9_]{22,}/g,
  /sk-ant-[A-Za-z0-9_-]{20,}/g,
  // The credential actions/checkout persists for git (`AUTHORIZATION: basic <base64>`), and bearer tokens.
  /(?<=\bauthorization:\s*(?:basic|bearer|token)\s+)[A-Za-z0-9+/=._-]{8,}/gi,
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
    const spans = mergeSpans([...this.#secretSpans(text), ...shapeSpans(text)]);
    if (spans.length === 0) return text;
    let out = '';
    let cursor = 0;
    for (const [start, end] of spans) {
      out += text.slice(cursor, start) + MASK;
      cursor = end;
    }
    return out + text.slice(cursor);
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
