// The agent's change as suggestions on a fork's pull request: only on lines of the pull request's diff, each
// block replacing exactly the head's lines it changes; the rest is left to the patch.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { commentableLines, suggestionsOf } from '../../../src/delivery/fork/suggestions.js';

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

/** Real `git diff` output (three lines of context) between two versions of some files. */
function diff(before: Record<string, string>, after: Record<string, string>): string {
  dir = mkdtempSync(path.join(tmpdir(), 'suggest-'));
  const git = (...args: string[]) =>
    execFileSync('git', ['-C', dir!, '-c', 'user.name=t', '-c', 'user.email=t@t', ...args], {
      encoding: 'utf8',
    });
  git('init', '-q');
  const write = (files: Record<string, string>) => {
    git('rm', '-rq', '--cached', '--ignore-unmatch', '.');
    for (const [file, content] of Object.entries(files)) writeFileSync(path.join(dir!, file), content);
    git('add', ...Object.keys(files));
    git('commit', '-q', '--allow-empty', '-m', 'x');
  };
  write(before);
  write(after);
  const out = git('diff', '--binary', '--full-index', '--no-color', 'HEAD~1', 'HEAD');
  rmSync(dir, { recursive: true, force: true });
  dir = undefined;
  return out;
}

const lines = (n: number, change: (k: number) => string = (k) => `line ${k}`) =>
  Array.from({ length: n }, (_, i) => `${change(i + 1)}\n`).join('');

describe('commentableLines', () => {
  it('gives each file the head-side range of each hunk', () => {
    const base = { 'a.txt': lines(30) };
    const head = { 'a.txt': lines(30, (k) => (k === 5 || k === 25 ? `changed ${k}` : `line ${k}`)) };
    expect([...commentableLines(diff(base, head))]).toEqual([
      [
        'a.txt',
        [
          [2, 8],
          [22, 28],
        ],
      ],
    ]);
  });
});

describe('suggestionsOf', () => {
  const head = { 'a.txt': lines(30, (k) => (k === 5 ? 'changed 5' : `line ${k}`)), 'b.txt': lines(3) };
  const allowed = commentableLines(diff({ 'a.txt': lines(30), 'b.txt': lines(3) }, head));

  it('replaces the changed lines inside the pull request’s diff, and leaves the rest to the patch', () => {
    const after = {
      'a.txt': lines(30, (k) =>
        k === 5 ? 'fixed 5' : k === 6 ? 'fixed 6' : k === 20 ? 'far 20' : `line ${k}`,
      ),
      'b.txt': lines(3),
      'new.txt': 'new\n',
    };
    const { suggestions, leftOut } = suggestionsOf(diff(head, after), allowed);
    expect(suggestions).toEqual([{ path: 'a.txt', startLine: 5, line: 6, lines: ['fixed 5', 'fixed 6'] }]);
    expect(leftOut.sort()).toEqual(['a.txt', 'new.txt']);
  });

  it('anchors an insertion on the line before it, and a deletion suggests nothing in its place', () => {
    const inserted = { ...head, 'a.txt': head['a.txt'].replace('changed 5\n', 'changed 5\nadded\n') };
    expect(suggestionsOf(diff(head, inserted), allowed).suggestions).toEqual([
      { path: 'a.txt', startLine: 5, line: 5, lines: ['changed 5', 'added'] },
    ]);
    const removed = { ...head, 'a.txt': head['a.txt'].replace('line 4\n', '') };
    expect(suggestionsOf(diff(head, removed), allowed).suggestions).toEqual([
      { path: 'a.txt', startLine: 4, line: 4, lines: [] },
    ]);
  });

  it('suggests nothing on a file the pull request does not change', () => {
    const after = { ...head, 'b.txt': 'other\n' + lines(3).slice('line 1\n'.length) };
    expect(suggestionsOf(diff(head, after), allowed)).toEqual({ suggestions: [], leftOut: ['b.txt'] });
  });
});
