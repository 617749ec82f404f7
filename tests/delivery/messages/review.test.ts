import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { pendingChange } from '../../../src/delivery/pending-change.js';
import { deliveryReview, MAX_REVIEW_FILES } from '../../../src/delivery/messages/review.js';
import { useWorkTree } from '../../support/delivery-fixture.js';

const tree = useWorkTree('review-', { 'hello.py': 'a\nb\nc\n', 'old.txt': 'gone\n' });

/** The last look at what would be committed now, as the session makes it. */
async function lastLook(options: { lockedWorkflows?: boolean } = {}) {
  return await deliveryReview(tree.repo, tree.start, await pendingChange(tree.repo, tree.start, options));
}

describe('deliveryReview', () => {
  it('lists what will be committed with line counts, and what is held back, in one message', async () => {
    tree.write('hello.py', 'a\nB\nc\nd\n');
    rmSync(join(tree.dir, 'old.txt'));
    tree.write('tool.py', 'x = 1\n');
    tree.write('.venv/pyvenv.cfg', 'home = /usr\n');
    tree.write('.venv/lib/site.py', 'pass\n');
    tree.write('node_modules/pad/index.js', 'module.exports = 1\n');
    const look = (await lastLook())!;
    expect(look.paths).toEqual(['hello.py', 'old.txt', 'tool.py']);
    expect(look.text).toBe(
      [
        'Before delivery, the files that will be committed (3):',
        '- hello.py (changed, +2 −1)',
        '- old.txt (deleted, +0 −1)',
        '- tool.py (new, +1 −0)',
        'Held back, never committed:',
        '- .venv: a Python virtualenv (it holds pyvenv.cfg)',
        '- node_modules: installed Node packages',
        'If a file does not belong to the task (a build output, a cache, a scratch file), delete it now; otherwise the list is right and you can finish.',
      ].join('\n'),
    );
  });

  it('is undefined when the run changed nothing, and counts the files past the listed ones', async () => {
    expect(await lastLook()).toBeUndefined();
    for (let i = 0; i < MAX_REVIEW_FILES + 3; i++)
      tree.write(`gen/f${String(i).padStart(3, '0')}.txt`, 'x\n');
    const look = (await lastLook())!;
    expect(look.paths).toHaveLength(MAX_REVIEW_FILES + 3);
    expect(look.text).toContain(`committed (${MAX_REVIEW_FILES + 3}):`);
    expect(look.text).toContain('- … and 3 more files');
    expect(look.text.split('\n').filter((line) => line.startsWith('- gen/'))).toHaveLength(MAX_REVIEW_FILES);
  });

  it('lists workflow files apart when the token may not change them: left out, their patch attached', async () => {
    tree.write('hello.py', 'a\nB\nc\n');
    tree.write('.github/workflows/ci.yml', 'name: ci\n');
    const locked = (await lastLook({ lockedWorkflows: true }))!;
    expect(locked.paths).toEqual(['hello.py']);
    expect(locked.text).toContain(
      [
        'Left out of the pull request, because this token may not create or change workflow files (their change is attached to it as a patch):',
        '- .github/workflows/ci.yml',
      ].join('\n'),
    );
    const open = (await lastLook())!;
    expect(open.paths).toEqual(['.github/workflows/ci.yml', 'hello.py']);
    expect(open.text).not.toContain('Left out');
  });
});
