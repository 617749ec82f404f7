import { execFile } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { GitRepo } from '../../src/git/repo.js';
import { deliveryRecord } from '../../src/record/delivery.js';

const run = promisify(execFile);

/** A repository with one commit, then the run's commit on top, and a file the commit left out. */
async function repoWithWork(): Promise<{ git: GitRepo; startSha: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'delivery-record-'));
  const git = (...args: string[]) =>
    run('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], { cwd: dir });
  await git('init', '-q', '-b', 'main');
  await writeFile(join(dir, 'hello.py'), 'print("hi")\n');
  await git('add', '-A');
  await git('commit', '-q', '-m', 'start');
  const startSha = (await git('rev-parse', 'HEAD')).stdout.trim();
  await writeFile(join(dir, 'hello.py'), 'print("hello")\n');
  await writeFile(join(dir, 'notes.md'), 'notes\n');
  await git('add', '-A');
  await git('commit', '-q', '-m', 'work');
  await writeFile(join(dir, 'gha-creds-1.json'), '{}\n');
  return { git: new GitRepo(dir), startSha };
}

describe('deliveryRecord', () => {
  it('lists what the commits hold and what they left out, without a patch once the work is pushed', async () => {
    const { git, startSha } = await repoWithWork();
    const record = await deliveryRecord(git, startSha, {
      pushedBranch: 'agent/x',
      pr: { number: 2, url: 'u', reused: false },
    });
    expect(record).toEqual({
      committed: ['M\thello.py', 'A\tnotes.md'],
      heldBack: ['gha-creds-1.json'],
      pushed: 'agent/x',
      pr: { number: 2, url: 'u' },
    });
  });

  it('keeps the work as a patch when nothing was pushed, with the reason', async () => {
    const { git, startSha } = await repoWithWork();
    const record = await deliveryRecord(git, startSha, { note: 'The work could not be pushed: no remote' });
    expect(record.refused?.reason).toBe('The work could not be pushed: no remote');
    expect(record.refused?.patch).toContain('+print("hello")');
    expect(record.refused?.patch).toContain('diff --git a/notes.md b/notes.md');
  });
});
