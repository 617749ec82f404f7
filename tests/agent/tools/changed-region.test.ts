// What an edit left, as the model is shown it: the stretch an edit changed, followed through later edits,
// and the changed lines with three lines either side, numbered as read_file numbers them.
import { describe, expect, it } from 'vitest';
import {
  carrySpans,
  changedSpan,
  MAX_SHOWN_LINES,
  MAX_TRACKED_SPANS,
  showChanges,
} from '../../../src/agent/tools/changed-region.js';
import { numbered } from '../../../src/agent/tools/read-file.js';

const text = (count: number) => Array.from({ length: count }, (_, i) => `line ${i + 1}`).join('\n') + '\n';
/** The line numbers a result shows, `…` for a gap. */
const shownLines = (shown: string) =>
  shown.split('\n').map((row) => (row.trim() === '…' ? '…' : Number(/^\s*(\d+)/.exec(row)?.[1])));

describe('changedSpan', () => {
  it('finds the one changed stretch from the start of its line, and nothing when nothing changed', () => {
    const before = 'a\nb\nc\n';
    expect(changedSpan(before, before)).toBeUndefined();
    const after = 'a\nbee\nc\n';
    const span = changedSpan(before, after)!;
    expect(after.slice(span.start, span.end)).toBe('bee');
    expect(changedSpan('a\nb\n', 'a\n')).toEqual({ start: 2, end: 2 });
  });
});

describe('carrySpans', () => {
  it('moves earlier spans by the later replacements and adds the stretches they wrote', () => {
    // "hello world": "world" (6..11) was changed; then "hello" (0..5) became "hi".
    expect(carrySpans([{ start: 6, end: 11 }], [{ at: 0, length: 5, inserted: 2 }])).toEqual([
      { start: 0, end: 2 },
      { start: 3, end: 8 },
    ]);
    // A span a later replacement swallows ends at that replacement's new end.
    expect(carrySpans([{ start: 2, end: 4 }], [{ at: 1, length: 5, inserted: 1 }])).toEqual([
      { start: 1, end: 2 },
      { start: 1, end: 2 },
    ]);
  });

  it('follows at most MAX_TRACKED_SPANS stretches, the first in the text', () => {
    const many = Array.from({ length: MAX_TRACKED_SPANS + 50 }, (_, i) => ({
      at: i * 10,
      length: 1,
      inserted: 1,
    }));
    const spans = carrySpans([], many);
    expect(spans).toHaveLength(MAX_TRACKED_SPANS);
    expect(spans[0]).toEqual({ start: 0, end: 1 });
  });
});

describe('showChanges', () => {
  it('shows the changed line with three lines either side, numbered as read_file does', () => {
    const file = text(20);
    const at = file.indexOf('line 10');
    const shown = showChanges(file, [{ start: at, end: at + 7 }], 'a.txt');
    expect(shownLines(shown)).toEqual([7, 8, 9, 10, 11, 12, 13]);
    expect(shown.split('\n')[3]).toBe(numbered(10, 'line 10'));
  });

  it('merges windows that touch and parts the others with …', () => {
    const file = text(40);
    const span = (line: number) => {
      const start = file.indexOf(`line ${line}\n`);
      return { start, end: start + `line ${line}`.length };
    };
    expect(shownLines(showChanges(file, [span(5), span(11), span(30)], 'a.txt'))).toEqual([
      2,
      3,
      4,
      5,
      6,
      7,
      8,
      9,
      10,
      11,
      12,
      13,
      14,
      '…',
      27,
      28,
      29,
      30,
      31,
      32,
      33,
    ]);
  });

  it('stops at MAX_SHOWN_LINES with where to read on, and says when the file is now empty', () => {
    const file = text(100);
    const shown = showChanges(file, [{ start: 0, end: file.length }], 'big.txt').split('\n');
    expect(shown).toHaveLength(MAX_SHOWN_LINES + 1);
    expect(shown.at(-1)).toBe(
      `[shown up to line ${MAX_SHOWN_LINES} of 100 in big.txt; read_file with offset=${MAX_SHOWN_LINES + 1} shows the rest]`,
    );
    expect(showChanges('', [{ start: 0, end: 0 }], 'a.txt')).toBe('(a.txt is now empty)');
  });
});
