// The pull request's closing line (src/github/closes-line.ts): written one way, and read back as GitHub reads
// a description's closing keywords, for this repository's issues only.
import { describe, expect, it } from 'vitest';
import { closedBy, closesLine } from '../../src/github/closes-line.js';

const HERE = 'octo-org/octo-repo';

describe('closesLine and closedBy', () => {
  it('reads back the issue the line it wrote names, wherever the line stands in a description', () => {
    expect(closesLine(42)).toBe('Closes #42');
    expect(closedBy(closesLine(42), HERE)).toBe(42);
    expect(closedBy(`Fixes the parser.\n\n${closesLine(7)}\n\nMore words.`, HERE)).toBe(7);
  });

  it("reads every closing keyword of GitHub's list, in any case, with or without a colon", () => {
    const keywords = [
      'close',
      'closes',
      'closed',
      'fix',
      'fixes',
      'fixed',
      'resolve',
      'resolves',
      'resolved',
    ];
    for (const keyword of keywords) {
      expect(closedBy(`${keyword} #5`, HERE)).toBe(5);
      expect(closedBy(`${keyword.toUpperCase()}: #6`, HERE)).toBe(6);
    }
    expect(closedBy('Fixes #5', HERE)).toBe(5);
    expect(closedBy('Resolves #5', HERE)).toBe(5);
    expect(closedBy('This change fixes #12 for good.', HERE)).toBe(12);
    expect(closedBy('Resolves #10, resolves #123', HERE)).toBe(10);
  });

  it('reads an issue named with its repository only when that repository is this one', () => {
    expect(closedBy('Fixes octo-org/octo-repo#100', HERE)).toBe(100);
    expect(closedBy('Fixes Octo-Org/Octo-Repo#101', HERE)).toBe(101);
    expect(closedBy('Fixes other-org/octo-repo#100', HERE)).toBeUndefined();
    expect(closedBy('Fixes other-org/other#100, closes #8', HERE)).toBe(8);
  });

  it('reads no issue from a mention, another word, or code', () => {
    expect(closedBy('See #42', HERE)).toBeUndefined();
    expect(closedBy('prefixes #42, a fixer #43, closing #44', HERE)).toBeUndefined();
    expect(closedBy('Fixes #42abc', HERE)).toBeUndefined();
    expect(closedBy('Write `Fixes #42` to close it.', HERE)).toBeUndefined();
    expect(closedBy('```\nCloses #42\n```', HERE)).toBeUndefined();
    expect(closedBy('', HERE)).toBeUndefined();
  });
});
