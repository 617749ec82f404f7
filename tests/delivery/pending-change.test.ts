import { rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { pendingChange } from '../../src/delivery/pending-change.js';
import type { GitRepo } from '../../src/git/repo.js';
import { useWorkTree, type WorkTree } from '../support/delivery-fixture.js';
import { git } from '../support/git-fixture.js';

const tree = useWorkTree('pending-', { 'hello.py': 'a\n', 'old.txt': 'gone\n' });
let dir: string;
let repo: GitRepo;
let start: string;
let write: WorkTree['write'];
beforeEach(() => {
  ({ dir, repo, start, write } = tree());
});

const paths = (changes: ReadonlyArray<{ path: string }>) => changes.map((change) => change.path);

describe('pendingChange', () => {
  it('stages the whole work tree and sorts what is held back out of what is committed', async () => {
    write('hello.py', 'b\n');
    rmSync(join(dir, 'old.txt'));
    write('node_modules/pad/index.js', 'module.exports = 1\n');
    symlinkSync('/etc/passwd', join(dir, 'out.txt'));
    const pending = await pendingChange(repo, start);
    expect(paths(pending.changes)).toEqual(['hello.py', 'node_modules/pad/index.js', 'old.txt', 'out.txt']);
    expect(paths(pending.committed)).toEqual(['hello.py', 'old.txt']);
    expect(pending.heldBack.map(({ path }) => path)).toEqual(['node_modules', 'out.txt']);
    expect(pending.workflows).toEqual([]);
    // Held back is only listed here: the index keeps everything until the delivery takes it out.
    expect(git(dir, 'diff', '--cached', '--name-only', start).split('\n')).toContain('out.txt');
  });

  it('leaves workflow files out only when the token may not change them', async () => {
    write('hello.py', 'b\n');
    write('.github/workflows/ci.yml', 'name: ci\n');
    const locked = await pendingChange(repo, start, { lockedWorkflows: true });
    expect(paths(locked.committed)).toEqual(['hello.py']);
    expect(locked.workflows).toEqual(['.github/workflows/ci.yml']);
    const open = await pendingChange(repo, start);
    expect(paths(open.committed)).toEqual(['.github/workflows/ci.yml', 'hello.py']);
    expect(open.workflows).toEqual([]);
  });
});
