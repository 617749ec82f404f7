import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
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
      heldBack: [{ path: 'gha-creds-1.json', files: 1 }],
      pushed: 'agent/x',
      pr: { number: 2, url: 'u' },
    });
  });

  it("says which contributor's branch the work was pushed onto, without a patch", async () => {
    const { git, startSha } = await repoWithWork();
    const record = await deliveryRecord(git, startSha, {
      pushedToFork: 'contributor/hello-world:feature',
      commit: { sha: startSha, signed: false },
      note: '@contributor allows edits from maintainers, so the work was pushed onto …',
    });
    expect(record.pushed).toBe('contributor/hello-world:feature');
    expect(record).not.toHaveProperty('refused');
  });

  it('keeps the work as a patch when nothing was pushed, with the reason', async () => {
    const { git, startSha } = await repoWithWork();
    const record = await deliveryRecord(git, startSha, { note: 'The work could not be pushed: no remote' });
    expect(record.refused?.reason).toBe('The work could not be pushed: no remote');
    expect(record.refused?.patch).toContain('+print("hello")');
    expect(record.refused?.patch).toContain('diff --git a/notes.md b/notes.md');
  });

  it('groups what the commit left out as delivery held it back: a virtualenv once, with its count and why', async () => {
    const { git, startSha } = await repoWithWork();
    for (const file of ['pyvenv.cfg', 'bin/python', 'lib/site.py'])
      await mkdir(join(git.dir, '.venv', file, '..'), { recursive: true }).then(() =>
        writeFile(join(git.dir, '.venv', file), 'x\n'),
      );
    await mkdir(join(git.dir, 'node_modules', 'left-pad'), { recursive: true });
    await writeFile(join(git.dir, 'node_modules', 'left-pad', 'index.js'), 'x\n');
    await writeFile(join(git.dir, 'big.bin'), 'x\n');
    const record = await deliveryRecord(git, startSha, {
      pushedBranch: 'agent/x',
      heldBack: [
        { path: '.venv', why: 'a Python virtualenv (it holds pyvenv.cfg)', files: 3 },
        { path: 'big.bin', why: 'a new file of 12.0 MB, over the 10 MB a new file may have', files: 1 },
      ],
    });
    expect(record.heldBack).toEqual([
      { path: '.venv', files: 3, why: 'a Python virtualenv (it holds pyvenv.cfg)' },
      { path: 'big.bin', files: 1, why: 'a new file of 12.0 MB, over the 10 MB a new file may have' },
      // Not in what delivery said (a record of a delivery that broke off): the same rules, by path alone.
      { path: 'node_modules', files: 1, why: 'installed Node packages' },
      { path: 'gha-creds-1.json', files: 1 },
    ]);
  });
});
