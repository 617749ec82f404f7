import { describe, expect, it } from 'vitest';
import { blobSizes, treeChanges } from '../../src/git/tree-changes.js';

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
