// Pure text for GitHub's Markdown: short numbers and durations, safe URLs and code spans, and escaping that
// makes model-written text render as itself and nothing more.
import { redactAndCut, redactor } from './redact.js';

/** 950 → "950", 1234 → "1.2k", 14_200 → "14.2k", 12_000 → "12k", 3_400_000 → "3.4M". */
export function shortNumber(n: number): string {
  if (!Number.isFinite(n) || Math.abs(n) < 1000) return String(Math.round(n));
  const units: [number, string][] = [
    [1e3, 'k'],
    [1e6, 'M'],
    [1e9, 'B'],
  ];
  for (const [index, [size, suffix]] of units.entries()) {
    const value = n / size;
    const digits = Math.abs(value) < 100 ? 1 : 0;
    const rounded = Number(value.toFixed(digits));
    // 999_960 would round to "1000k": move on to the next unit instead.
    if (Math.abs(rounded) < 1000 || index === units.length - 1) return `${rounded}${suffix}`;
  }
  return String(n);
}

/** 42_000 → "42 s", 72_000 → "1 min 12 s", 3_900_000 → "1 h 5 min". */
export function formatDuration(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return seconds % 60 ? `${minutes} min ${seconds % 60} s` : `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  return minutes % 60 ? `${hours} h ${minutes % 60} min` : `${hours} h`;
}

export function formatCost(usd: number): string {
  return usd > 0 && usd < 0.005 ? '<$0.01' : `$${usd.toFixed(2)}`;
}

/**
 * Redacted, then made a single line of at most `max` code points (plus "…"): redaction always comes before
 * the cut, which could otherwise split a secret so that neither the redactor here nor the API's sees it.
 */
export function shorten(text: string, max: number): string {
  return redactAndCut(text, max + 1, (whole) => foldWhitespace(redactor.redact(whole)));
}

/** The first non-empty line: an error message without its stack trace. */
export function firstLine(text: string): string {
  return text.split(/\r\n|[\n\r\u2028\u2029]/).find((line) => foldWhitespace(line) !== '') ?? '';
}

/** Line breaks, tabs and control characters become single spaces; the result is trimmed. */
export function foldWhitespace(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\s\u0000-\u001f\u007f-\u009f]+/g, ' ').trim();
}

/** Only http(s) URLs, with the characters that could end a Markdown link destination encoded. */
export function safeUrl(url: string): string | undefined {
  if (!/^https?:\/\//i.test(url)) return undefined;
  return url.replace(/[\s()<>[\]`"'\\]/g, percentEncode);
}

function percentEncode(char: string): string {
  return Array.from(
    new TextEncoder().encode(char),
    (byte) => `%${byte.toString(16).toUpperCase().padStart(2, '0')}`,
  ).join('');
}

/** A code span that holds any text: the fence is longer than any backtick run inside. */
export function codeSpan(text: string): string {
  const inner = foldWhitespace(text);
  const longestRun = Math.max(0, ...(inner.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(longestRun + 1);
  const pad = inner.startsWith('`') || inner.endsWith('`') ? ' ' : '';
  return `${fence}${pad}${inner}${pad}${fence}`;
}

// ---- escaping model-written text ----

const ZERO_WIDTH_JOINER = '\u200d';
const ZERO_WIDTH_SPACE = '\u200b';
const HTML_ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;' };

/**
 * Makes text safe inside one line of Markdown: it renders as the same characters but cannot start a
 * block, emphasis, code, link, image, HTML, math or table cell, ping anyone, or turn into an autolink.
 * Issue references (`#123`) stay live. Secrets are redacted first: escaped (`ghp\_…`, `a@\u200dhost`),
 * the API's own redaction would no longer know them, yet they render as themselves.
 */
export function escapeMarkdown(text: string): string {
  return escapeFolded(foldWhitespace(redactor.redact(text)));
}

/** escapeMarkdown's escaping alone, of text already redacted and folded to one line. */
function escapeFolded(text: string): string {
  return (
    text
      // Mentions and email autolinks: a zero-width joiner after '@' breaks both.
      .replace(/@/g, `@${ZERO_WIDTH_JOINER}`)
      // URL autolinks: GitHub links "scheme://" and "www."; a zero-width space breaks the pattern.
      .replace(/:\/\//g, `:${ZERO_WIDTH_SPACE}//`)
      .replace(/(www)\./gi, `$1${ZERO_WIDTH_SPACE}.`)
      // HTML becomes entities; Markdown punctuation is backslash-escaped. '#' before a digit is an issue
      // reference (mid-line it cannot start a heading); any other '#' is escaped so that a trailing one
      // cannot be read as a heading's closing sequence.
      .replace(/[&<>]|#(?!\d)|[\\`*_[\]()|~!${}]/g, (c) => HTML_ENTITIES[c] ?? `\\${c}`)
  );
}

/**
 * A sentence of our own for Markdown: what it writes between backticks (`github_token`, `.github/workflows/`)
 * renders as code, and everything else as escaped text, so that the same sentence reads right in the log and
 * renders once, never with its backticks or underscores shown as backslash escapes. Any text it quotes from
 * elsewhere is escaped like the rest; a code span of it cannot break out (its fence outgrows what it holds).
 */
export function markdownSentence(text: string): string {
  const folded = foldWhitespace(redactor.redact(text));
  const parts = folded.split(/`([^`]+)`/);
  // Odd places hold what stood between a pair of backticks; an unpaired backtick stays in the text, escaped.
  // A span holding HTML's characters stays text too: inside code they could not be escaped, and `-->` there
  // would end the comment that carries the checklist's state.
  return parts
    .map((part, i) => {
      if (i % 2 === 0) return escapeFolded(part);
      return /[<>&]/.test(part) ? escapeFolded(`\`${part}\``) : codeSpan(part);
    })
    .join('');
}
