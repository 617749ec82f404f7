import { describe, expect, it } from 'vitest';
import {
  blobSizes,
  isLocallyRejected,
  lineCountsOf,
  statusPaths,
  treeChanges,
} from '../../src/git/tree-changes.js';

const A = 'a'.repeat(40);
const Z = '0'.repeat(40);

describe("git's tree listings, read", () => {
  it('reads one change a file, with the new blob size from ls-tree, and 0 for a deletion', () => {
    const raw = [
      `:000000 100644 ${Z} ${A} A`,
      'new file.txt',
      `:100644 000000 ${A} ${Z} D`,
      'gone.txt',
      `:100644 120000 ${A} ${A} T`,
      'link',
      '',
    ].join('\0');
    const sizes = blobSizes(
      [`100644 blob ${A}      12\tnew file.txt`, `120000 blob ${A}       3\tlink`, ''].join('\0'),
    );
    expect(treeChanges(raw, sizes)).toEqual([
      { path: 'new file.txt', status: 'A', oldMode: '000000', mode: '100644', blob: A, size: 12 },
      { path: 'gone.txt', status: 'D', oldMode: '100644', mode: '000000', blob: Z, size: 0 },
      { path: 'link', status: 'T', oldMode: '100644', mode: '120000', blob: A, size: 3 },
    ]);
  });

  it('gives a submodule (no size in ls-tree) a size of 0', () => {
    expect(blobSizes(`160000 commit ${A}       -\tvendor/lib\0`).get('vendor/lib')).toBe(0);
  });
});

describe('lineCountsOf', () => {
  it('counts lines per file, a binary file as none, and keeps a tab in a name', () => {
    const counts = lineCountsOf(['3\t1\thello.py', '-\t-\tlogo.png', '2\t0\ta\tb.txt', ''].join('\0'));
    expect([...counts]).toEqual([
      ['hello.py', { additions: 3, deletions: 1 }],
      ['logo.png', { additions: 0, deletions: 0 }],
      ['a\tb.txt', { additions: 2, deletions: 0 }],
    ]);
  });
});

describe('statusPaths', () => {
  it('gives each path as it is, a space or a non-ASCII letter unquoted', () => {
    expect(statusPaths(' M hello.py\0?? new file.txt\0?? café.md\0')).toEqual([
      'hello.py',
      'new file.txt',
      'café.md',
    ]);
  });
});

describe('isLocallyRejected', () => {
  it("tells git's own refusal (a race another name or a fetch fixes) from the server's", () => {
    expect(isLocallyRejected('To origin\n!\tHEAD:refs/heads/x\t[rejected] (fetch first)\nDone')).toBe(true);
    expect(
      isLocallyRejected('To origin\n!\tHEAD:refs/heads/x\t[remote rejected] (protected branch)\nDone'),
    ).toBe(false);
  });
});
