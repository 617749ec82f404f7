// How the github tool shows text people wrote and where a page of answers stands (src/github/reading/text.ts).
import { describe, expect, it } from 'vitest';
import { cleaned, hasNext, pageNote } from '../../../src/github/reading/text.js';

describe('cleaned', () => {
  it('shows hidden comments as nothing, empty text as (empty), and cuts long text saying how much', () => {
    expect(cleaned('  visible <!-- hidden --> words ')).toBe('visible  words');
    expect(cleaned(null)).toBe('(empty)');
    expect(cleaned('<!-- only hidden -->')).toBe('(empty)');
    expect(cleaned('x'.repeat(12), 10)).toBe(`${'x'.repeat(10)}\n[… 2 characters cut]`);
  });
});

describe('pageNote and hasNext', () => {
  it('says nothing about a lone first page, and names the next page when there is one', () => {
    expect(pageNote(1, 5, false, 'comments')).toBe('');
    expect(pageNote(1, 30, true, 'comments')).toBe('\n[page 1: 30 comments; read on with page=2]');
    expect(pageNote(3, 4, false, 'comments')).toBe('\n[page 3: 4 comments]');
  });

  it("reads a next page from GitHub's Link header only", () => {
    expect(hasNext({ link: '<https://api.example.test/x?page=2>; rel="next", <…>; rel="last"' })).toBe(true);
    expect(hasNext({ link: '<https://api.example.test/x?page=1>; rel="prev"' })).toBe(false);
    expect(hasNext({})).toBe(false);
  });
});
