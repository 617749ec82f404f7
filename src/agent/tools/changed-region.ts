// What an edit left: the changed lines with a few lines either side, numbered as read_file numbers them, so
// the model sees the result of its edit without reading the file again.
import { numbered } from './read-file.js';
import { splitLines } from './text-file.js';

/** Lines shown either side of a change. */
export const CONTEXT_LINES = 3;
/** The most lines one result shows; a longer change ends with a note saying where to read on. */
export const MAX_SHOWN_LINES = 40;
/**
 * The most changed stretches followed through a run of edits, the first ones in the text: far more than 40
 * lines show, and each stretch followed costs a pass over every later replacement (thousands of them,
 * followed all, made two replace_all edits of a 2 MB file take minutes).
 */
export const MAX_TRACKED_SPANS = 200;

/** A changed stretch of the new text, as character offsets: [start, end). Empty for a deletion. */
export interface CharSpan {
  start: number;
  end: number;
}

/** One replacement in a text: `length` characters at `at` became `inserted` characters. */
export interface Replacement {
  at: number;
  length: number;
  inserted: number;
}

/**
 * The spans changed so far, carried through a further set of replacements (given in the coordinates of the
 * text they apply to, in order), plus the spans those replacements wrote: the first MAX_TRACKED_SPANS of
 * them in the text.
 */
export function carrySpans(spans: readonly CharSpan[], replacements: readonly Replacement[]): CharSpan[] {
  /** Where `offset` lands after the replacements; one inside a replaced stretch goes to its new start or end. */
  const move = (offset: number, side: 'start' | 'end'): number => {
    let shift = 0;
    for (const r of replacements) {
      if (r.at + r.length <= offset) shift += r.inserted - r.length;
      else if (r.at < offset) return r.at + shift + (side === 'end' ? r.inserted : 0);
    }
    return offset + shift;
  };
  const carried = spans.map(({ start, end }) => ({ start: move(start, 'start'), end: move(end, 'end') }));
  let shift = 0;
  const written: CharSpan[] = [];
  for (const r of replacements) {
    if (written.length === MAX_TRACKED_SPANS) break;
    written.push({ start: r.at + shift, end: r.at + shift + r.inserted });
    shift += r.inserted - r.length;
  }
  return [...carried, ...written].sort((a, b) => a.start - b.start).slice(0, MAX_TRACKED_SPANS);
}

/** The one stretch where `after` differs from `before`, found from their common first and last lines. */
export function changedSpan(before: string, after: string): CharSpan | undefined {
  if (before === after) return undefined;
  let start = 0;
  const most = Math.min(before.length, after.length);
  while (start < most && before.charCodeAt(start) === after.charCodeAt(start)) start++;
  start = after.lastIndexOf('\n', start - 1) + 1; // back to the start of its line
  let fromEnd = 0;
  while (
    fromEnd < most - start &&
    before.charCodeAt(before.length - 1 - fromEnd) === after.charCodeAt(after.length - 1 - fromEnd)
  )
    fromEnd++;
  return { start, end: Math.max(start, after.length - fromEnd) };
}

/**
 * The 1-based line holding each character offset of `text` (the last line for the end of the text): the
 * newlines counted in one pass for all of them, not once per offset.
 */
function linesOf(text: string, offsets: readonly number[]): number[] {
  const order = offsets
    .map((offset, index) => ({ end: Math.min(offset, text.length - 1) + 1, index }))
    .sort((a, b) => a.end - b.end);
  const lines = new Array<number>(offsets.length);
  let newlines = 0;
  let scanned = 0;
  for (const { end, index } of order) {
    for (let i = text.indexOf('\n', scanned); i !== -1 && i < end; i = text.indexOf('\n', i + 1)) newlines++;
    scanned = Math.max(scanned, end);
    lines[index] = Math.max(1, newlines + (text[end - 1] === '\n' ? 0 : 1));
  }
  return lines;
}

/**
 * The changed lines of `text` with CONTEXT_LINES either side, numbered, windows that touch merged and
 * others parted by `…`, at most MAX_SHOWN_LINES in all.
 */
export function showChanges(text: string, spans: readonly CharSpan[], shownPath: string): string {
  const lines = splitLines(text);
  if (lines.length === 0) return `(${shownPath} is now empty)`;
  const firsts = linesOf(
    text,
    spans.map(({ start }) => start),
  );
  const lasts = linesOf(
    text,
    spans.map(({ start, end }) => (end > start ? end - 1 : start)),
  );
  const windows = spans
    .map((_, index) => ({
      from: Math.max(1, firsts[index]! - CONTEXT_LINES),
      to: Math.min(lines.length, lasts[index]! + CONTEXT_LINES),
    }))
    .sort((a, b) => a.from - b.from);
  const merged: { from: number; to: number }[] = [];
  for (const window of windows) {
    const previous = merged.at(-1);
    if (previous && window.from <= previous.to + 1) previous.to = Math.max(previous.to, window.to);
    else merged.push({ ...window });
  }
  const rows: string[] = [];
  let shown = 0;
  for (const [index, { from, to }] of merged.entries()) {
    if (index > 0) rows.push('     …');
    for (let line = from; line <= to; line++) {
      if (shown === MAX_SHOWN_LINES) {
        rows.push(
          `[shown up to line ${line - 1} of ${lines.length} in ${shownPath}; read_file with offset=${line} shows the rest]`,
        );
        return rows.join('\n');
      }
      rows.push(numbered(line, lines[line - 1]!));
      shown++;
    }
  }
  return rows.join('\n');
}
