import { rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { pendingChange } from '../../src/delivery/pending-change.js';
import { useWorkTree } from '../support/delivery-fixture.js';
import { git } from '../support/git-fixture.js';

const tree = useWorkTree('pending-', { 'hello.py': 'a\n', 'old.txt': 'gone\n' });

const paths = (changes: ReadonlyArray<{ path: string }>) => changes.map((change) => change.path);

describe('pendingChange', () => {
  it('stages the whole work tree and sorts what is held back out of what is committed', async () => {
    tree.write('hello.py', 'b\n');
    rmSync(join(tree.dir, 'old.txt'));
    tree.write('node_modules/pad/index.js', 'module.exports = 1\n');
    symlinkSync('/etc/passwd', join(tree.dir, 'out.txt'));
    const pending = await pendingChange(tree.repo, tree.start);
    expect(paths(pending.changes)).toEqual(['hello.py', 'node_modules/pad/index.js', 'old.txt', 'out.txt']);
    expect(paths(pending.committed)).toEqual(['hello.py', 'old.txt']);
    expect(pending.heldBack.map(({ path }) => path)).toEqual(['node_modules', 'out.txt']);
    expect(pending.workflows).toEqual([]);
    // Held back is only listed here: the index keeps everything until the delivery takes it out.
    expect(git(tree.dir, 'diff', '--cached', '--name-only', tree.start).split('\n')).toContain('out.txt');
  });

  it('leaves workflow files out only when the token may not change them', async () => {
    tree.write('hello.py', 'b\n');
    tree.write('.github/workflows/ci.yml', 'name: ci\n');
    const locked = await pendingChange(tree.repo, tree.start, { lockedWorkflows: true });
    expect(paths(locked.committed)).toEqual(['hello.py']);
    expect(locked.workflows).toEqual(['.github/workflows/ci.yml']);
    const open = await pendingChange(tree.repo, tree.start);
    expect(paths(open.committed)).toEqual(['.github/workflows/ci.yml', 'hello.py']);
    expect(open.workflows).toEqual([]);
  });
});
