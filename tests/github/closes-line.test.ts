// The pull request's closing line (src/github/closes-line.ts): written one way, and read back only that way.
import { describe, expect, it } from 'vitest';
import { closedBy, closesLine } from '../../src/github/closes-line.js';

describe('closesLine and closedBy', () => {
  it('reads back the issue the line it wrote names, wherever the line stands in a description', () => {
    expect(closesLine(42)).toBe('Closes #42');
    expect(closedBy(closesLine(42))).toBe(42);
    expect(closedBy(`Fixes the parser.\n\n${closesLine(7)}\n\nMore words.`)).toBe(7);
  });

  it('reads no issue from a line that only mentions one, or that says more on the same line', () => {
    expect(closedBy('This closes #42 for good')).toBeUndefined();
    expect(closedBy('Closes #42 and #43')).toBeUndefined();
    expect(closedBy('closes #42')).toBeUndefined();
    expect(closedBy('')).toBeUndefined();
  });
});
