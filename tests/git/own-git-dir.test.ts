import {
  chmodSync,
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { disarmGitDirs } from '../../src/git/git-dirs.js';
import { saveConfig } from '../../src/git/config-guard.js';
import { remakeGitDir, reserveGitDir } from '../../src/git/own-git-dir.js';
import { GitRepo } from '../../src/git/repo.js';
import { git, GIT_ENV, shallowCloneOfSeeded, useGitScratch, WHO } from '../support/git-fixture.js';

const env = GIT_ENV;
const who = WHO;

const scratch = useGitScratch('todo-agent-own-git-', () => shallowCloneOfSeeded(scratch, 3));

/** Commits in the checkout and leaves it detached at that commit, which no ref holds (a pull request merge). */
function detachAtNewCommit(): string {
  writeFileSync(join(scratch.dir, 'merge.txt'), 'm\n');
  git(scratch.dir, 'add', '-A');
  git(scratch.dir, ...who, 'commit', '-qm', 'merge');
  const sha = git(scratch.dir, 'rev-parse', 'HEAD');
  git(scratch.dir, 'switch', '-q', '--detach', sha);
  git(scratch.dir, 'update-ref', '-d', 'refs/heads/main');
  return sha;
}

describe('reserveGitDir', () => {
  it('makes a private directory under RUNNER_TEMP, outside the workspace', async () => {
    const runnerTemp = join(scratch.root, 'runner-temp');
    mkdirSync(runnerTemp);
    const own = await reserveGitDir({ RUNNER_TEMP: runnerTemp });
    expect(own.path.startsWith(`${runnerTemp}/todo-agent-git-`)).toBe(true);
    expect(readdirSync(own.path)).toEqual([]);
    await own.remove();
    expect(existsSync(own.path)).toBe(false);
  });

  it('adopts a shallow checkout: same HEAD branch, refs, shallow, origin and index, nothing of its hooks', async () => {
    const own = await reserveGitDir({ RUNNER_TEMP: scratch.root });
    const checkout = new GitRepo(scratch.dir, { env });
    const repo = await own.adopt(checkout, { env });
    expect(repo.gitDir).toBe(own.path);
    expect(await repo.head()).toBe(git(scratch.dir, 'rev-parse', 'HEAD'));
    expect(readFileSync(join(own.path, 'shallow'), 'utf8')).toBe(
      readFileSync(join(scratch.dir, '.git', 'shallow'), 'utf8'),
    );
    expect(await repo.resolve('refs/remotes/origin/main')).toBe(git(scratch.dir, 'rev-parse', 'HEAD'));
    expect(git(scratch.dir, `--git-dir=${own.path}`, 'symbolic-ref', 'HEAD')).toBe('refs/heads/main');
    expect(git(scratch.dir, `--git-dir=${own.path}`, 'config', 'remote.origin.url')).toBe(
      git(scratch.dir, 'config', 'remote.origin.url'),
    );
    expect(existsSync(join(own.path, 'hooks'))).toBe(false);
    expect(await repo.hasChanges()).toBe(false);
    await own.remove();
  });

  it('keeps a detached checkout (a pull request merge commit no ref holds) detached at that commit', async () => {
    const sha = detachAtNewCommit();
    const own = await reserveGitDir({ RUNNER_TEMP: scratch.root });
    const repo = await own.adopt(new GitRepo(scratch.dir, { env }), { env });
    expect(await repo.head()).toBe(sha);
    expect(git(scratch.dir, `--git-dir=${own.path}`, 'rev-parse', '--abbrev-ref', 'HEAD')).toBe('HEAD');
    expect(await repo.resolve('refs/todo-agent/start')).toBeUndefined();
    await own.remove();
  }, 20_000);

  it('after the tools ran, commits and pushes the work tree there, reading nothing of the planted .git', async () => {
    const own = await reserveGitDir({ RUNNER_TEMP: scratch.root });
    const repo = await own.adopt(new GitRepo(scratch.dir, { env }), { env });
    const start = await repo.head();
    // The model's attacks on our git: hooks, a hooks link, links for the files git writes, shallow to a
    // secret, a config with fsmonitor, a remote elsewhere, an alternates file.
    const secret = join(scratch.root, 'npmrc');
    writeFileSync(secret, '//npm.registry.example/:_authToken=npm_shallowLeak\n');
    const outsideFile = join(scratch.root, 'outside.txt');
    writeFileSync(outsideFile, 'outside\n');
    const dotGit = join(scratch.dir, '.git');
    rmSync(join(dotGit, 'hooks'), { recursive: true, force: true });
    symlinkSync(scratch.marks, join(dotGit, 'hooks'));
    writeFileSync(join(scratch.marks, 'post-commit'), `#!/bin/sh\ntouch ${scratch.marks}/post-commit-ran\n`);
    chmodSync(join(scratch.marks, 'post-commit'), 0o755);
    symlinkSync(outsideFile, join(dotGit, 'COMMIT_EDITMSG'));
    rmSync(join(dotGit, 'logs'), { recursive: true, force: true });
    mkdirSync(join(dotGit, 'logs'));
    symlinkSync(outsideFile, join(dotGit, 'logs', 'HEAD'));
    rmSync(join(dotGit, 'shallow'));
    symlinkSync(secret, join(dotGit, 'shallow'));
    git(scratch.dir, 'config', 'core.fsmonitor', `touch ${scratch.marks}/fsmonitor; false`);
    git(scratch.dir, 'config', 'remote.origin.url', join(scratch.root, 'elsewhere.git'));
    writeFileSync(join(dotGit, 'objects', 'info', 'alternates'), `${scratch.root}/nowhere/objects\n`);
    // The work: a file and a link that points out of the workspace.
    writeFileSync(join(scratch.dir, 'work.txt'), 'work\n');
    symlinkSync('/etc/passwd', join(scratch.dir, 'passwd-link'));

    expect(await repo.hasChanges()).toBe(true);
    const sha = await repo.commitAll('work');
    expect(sha).not.toBe(start);
    expect(await repo.push('agent/issue-1-1')).toEqual({ ok: true });

    expect(git(scratch.origin, 'rev-parse', 'refs/heads/agent/issue-1-1')).toBe(sha);
    expect(git(scratch.origin, 'ls-tree', sha!, 'passwd-link')).toMatch(/^120000 blob /);
    expect(git(scratch.origin, 'cat-file', 'blob', `${sha!}:passwd-link`)).toBe('/etc/passwd');
    expect(readFileSync(outsideFile, 'utf8')).toBe('outside\n');
    expect(readdirSync(scratch.marks)).toEqual(['post-commit']);

    // Handed back (after the disarm the run does first): the workspace's branch holds the commit, clean.
    await disarmGitDirs(scratch.dir, repo, [join(scratch.dir, '.git')]);
    await own.returnCommitToWorkspace(repo, start);
    expect(git(scratch.dir, 'rev-parse', 'HEAD')).toBe(sha);
    expect(git(scratch.dir, 'symbolic-ref', 'HEAD')).toBe('refs/heads/main');
    expect(git(scratch.dir, '-c', 'core.fsmonitor=false', 'status', '--porcelain')).toBe('');
    expect(readFileSync(outsideFile, 'utf8')).toBe('outside\n');
    await own.remove();
  }, 20_000);
});

describe('remakeGitDir', () => {
  it('makes a clean .git from ours: a detached checkout stays detached at its commit, with the saved configuration', async () => {
    const sha = detachAtNewCommit();
    const own = await reserveGitDir({ RUNNER_TEMP: scratch.root });
    const saved = await saveConfig(scratch.dir, own.path);
    await own.adopt(new GitRepo(scratch.dir, { env }), { env });
    const config = readFileSync(join(scratch.dir, '.git', 'config'), 'utf8');
    rmSync(join(scratch.dir, '.git'), { recursive: true });
    symlinkSync(scratch.root, join(scratch.dir, '.git'));
    // A leftover of a killed run's attempt is no trouble.
    mkdirSync(join(scratch.dir, '.git.todo-agent-new', 'objects'), { recursive: true });
    const removed: string[] = [];

    await remakeGitDir(
      own.path,
      scratch.dir,
      saved,
      async (target) => {
        removed.push(target);
        rmSync(target, { force: true });
        return true;
      },
      env,
    );

    expect(removed).toEqual([join(scratch.dir, '.git')]);
    expect(existsSync(join(scratch.root, 'seed'))).toBe(true); // what the link named is untouched
    expect(git(scratch.dir, 'rev-parse', 'HEAD')).toBe(sha);
    expect(git(scratch.dir, 'rev-parse', '--abbrev-ref', 'HEAD')).toBe('HEAD');
    expect(readFileSync(join(scratch.dir, '.git', 'config'), 'utf8')).toBe(config);
    expect(git(scratch.dir, 'status', '--porcelain')).toBe('');
    expect(existsSync(join(scratch.dir, '.git.todo-agent-new'))).toBe(false);
    await own.remove();
  }, 20_000);
});
