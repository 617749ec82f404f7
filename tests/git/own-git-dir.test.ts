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
import { cloneNewOrigin, commitFiles, git, GIT_ENV, useGitScratch, WHO } from '../support/git-fixture.js';

const env = GIT_ENV;
const who = WHO;

let root: string;
let origin: string;
let dir: string;
let marks: string;

useGitScratch('todo-agent-own-git-', (scratch) => {
  ({ root, origin, dir, marks } = scratch);
  const seed = join(root, 'seed');
  cloneNewOrigin(scratch, seed);
  for (const n of [1, 2, 3]) commitFiles(seed, { [`f${n}.txt`]: `${n}\n` }, `c${n}`);
  git(seed, 'push', '-q', 'origin', 'main');
  // What actions/checkout gives with its default fetch-depth: 1.
  git(root, 'clone', '--quiet', '--depth', '1', `file://${origin}`, dir);
});

describe('reserveGitDir', () => {
  it('makes a private directory under RUNNER_TEMP, outside the workspace', async () => {
    const runnerTemp = join(root, 'runner-temp');
    mkdirSync(runnerTemp);
    const own = await reserveGitDir({ RUNNER_TEMP: runnerTemp });
    expect(own.path.startsWith(`${runnerTemp}/todo-agent-git-`)).toBe(true);
    expect(readdirSync(own.path)).toEqual([]);
    await own.remove();
    expect(existsSync(own.path)).toBe(false);
  });

  it('adopts a shallow checkout: same HEAD branch, refs, shallow, origin and index, nothing of its hooks', async () => {
    const own = await reserveGitDir({ RUNNER_TEMP: root });
    const checkout = new GitRepo(dir, { env });
    const repo = await own.adopt(checkout, { env });
    expect(repo.gitDir).toBe(own.path);
    expect(await repo.head()).toBe(git(dir, 'rev-parse', 'HEAD'));
    expect(readFileSync(join(own.path, 'shallow'), 'utf8')).toBe(
      readFileSync(join(dir, '.git', 'shallow'), 'utf8'),
    );
    expect(await repo.resolve('refs/remotes/origin/main')).toBe(git(dir, 'rev-parse', 'HEAD'));
    expect(git(dir, `--git-dir=${own.path}`, 'symbolic-ref', 'HEAD')).toBe('refs/heads/main');
    expect(git(dir, `--git-dir=${own.path}`, 'config', 'remote.origin.url')).toBe(
      git(dir, 'config', 'remote.origin.url'),
    );
    expect(existsSync(join(own.path, 'hooks'))).toBe(false);
    expect(await repo.hasChanges()).toBe(false);
    await own.remove();
  });

  it('keeps a detached checkout (a pull request merge commit no ref holds) detached at that commit', async () => {
    writeFileSync(join(dir, 'merge.txt'), 'm\n');
    git(dir, 'add', '-A');
    git(dir, ...who, 'commit', '-qm', 'merge');
    const sha = git(dir, 'rev-parse', 'HEAD');
    git(dir, 'switch', '-q', '--detach', sha);
    git(dir, 'update-ref', '-d', 'refs/heads/main');
    const own = await reserveGitDir({ RUNNER_TEMP: root });
    const repo = await own.adopt(new GitRepo(dir, { env }), { env });
    expect(await repo.head()).toBe(sha);
    expect(git(dir, `--git-dir=${own.path}`, 'rev-parse', '--abbrev-ref', 'HEAD')).toBe('HEAD');
    expect(await repo.resolve('refs/todo-agent/start')).toBeUndefined();
    await own.remove();
  }, 20_000);

  it('after the tools ran, commits and pushes the work tree there, reading nothing of the planted .git', async () => {
    const own = await reserveGitDir({ RUNNER_TEMP: root });
    const repo = await own.adopt(new GitRepo(dir, { env }), { env });
    const start = await repo.head();
    // The model's attacks on our git: hooks, a hooks link, links for the files git writes, shallow to a
    // secret, a config with fsmonitor, a remote elsewhere, an alternates file.
    const secret = join(root, 'npmrc');
    writeFileSync(secret, '//npm.registry.example/:_authToken=npm_shallowLeak\n');
    const outsideFile = join(root, 'outside.txt');
    writeFileSync(outsideFile, 'outside\n');
    const dotGit = join(dir, '.git');
    rmSync(join(dotGit, 'hooks'), { recursive: true, force: true });
    symlinkSync(marks, join(dotGit, 'hooks'));
    writeFileSync(join(marks, 'post-commit'), `#!/bin/sh\ntouch ${marks}/post-commit-ran\n`);
    chmodSync(join(marks, 'post-commit'), 0o755);
    symlinkSync(outsideFile, join(dotGit, 'COMMIT_EDITMSG'));
    rmSync(join(dotGit, 'logs'), { recursive: true, force: true });
    mkdirSync(join(dotGit, 'logs'));
    symlinkSync(outsideFile, join(dotGit, 'logs', 'HEAD'));
    rmSync(join(dotGit, 'shallow'));
    symlinkSync(secret, join(dotGit, 'shallow'));
    git(dir, 'config', 'core.fsmonitor', `touch ${marks}/fsmonitor; false`);
    git(dir, 'config', 'remote.origin.url', join(root, 'elsewhere.git'));
    writeFileSync(join(dotGit, 'objects', 'info', 'alternates'), `${root}/nowhere/objects\n`);
    // The work: a file and a link that points out of the workspace.
    writeFileSync(join(dir, 'work.txt'), 'work\n');
    symlinkSync('/etc/passwd', join(dir, 'passwd-link'));

    expect(await repo.hasChanges()).toBe(true);
    const sha = await repo.commitAll('work');
    expect(sha).not.toBe(start);
    expect(await repo.push('agent/issue-1-1')).toEqual({ ok: true });

    expect(git(origin, 'rev-parse', 'refs/heads/agent/issue-1-1')).toBe(sha);
    expect(git(origin, 'ls-tree', sha!, 'passwd-link')).toMatch(/^120000 blob /);
    expect(git(origin, 'cat-file', 'blob', `${sha!}:passwd-link`)).toBe('/etc/passwd');
    expect(readFileSync(outsideFile, 'utf8')).toBe('outside\n');
    expect(readdirSync(marks)).toEqual(['post-commit']);

    // Handed back (after the disarm the run does first): the workspace's branch holds the commit, clean.
    await disarmGitDirs(dir, repo, [join(dir, '.git')]);
    await own.returnCommitToWorkspace(repo, start);
    expect(git(dir, 'rev-parse', 'HEAD')).toBe(sha);
    expect(git(dir, 'symbolic-ref', 'HEAD')).toBe('refs/heads/main');
    expect(git(dir, '-c', 'core.fsmonitor=false', 'status', '--porcelain')).toBe('');
    expect(readFileSync(outsideFile, 'utf8')).toBe('outside\n');
    await own.remove();
  }, 20_000);
});

describe('remakeGitDir', () => {
  it('makes a clean .git from ours: a detached checkout stays detached at its commit, with the saved configuration', async () => {
    writeFileSync(join(dir, 'merge.txt'), 'm\n');
    git(dir, 'add', '-A');
    git(dir, ...who, 'commit', '-qm', 'merge');
    const sha = git(dir, 'rev-parse', 'HEAD');
    git(dir, 'switch', '-q', '--detach', sha);
    git(dir, 'update-ref', '-d', 'refs/heads/main');
    const own = await reserveGitDir({ RUNNER_TEMP: root });
    const saved = await saveConfig(dir, own.path);
    await own.adopt(new GitRepo(dir, { env }), { env });
    const config = readFileSync(join(dir, '.git', 'config'), 'utf8');
    rmSync(join(dir, '.git'), { recursive: true });
    symlinkSync(root, join(dir, '.git'));
    // A leftover of a killed run's attempt is no trouble.
    mkdirSync(join(dir, '.git.todo-agent-new', 'objects'), { recursive: true });
    const removed: string[] = [];

    await remakeGitDir(
      own.path,
      dir,
      saved,
      async (target) => {
        removed.push(target);
        rmSync(target, { force: true });
        return true;
      },
      env,
    );

    expect(removed).toEqual([join(dir, '.git')]);
    expect(existsSync(join(root, 'seed'))).toBe(true); // what the link named is untouched
    expect(git(dir, 'rev-parse', 'HEAD')).toBe(sha);
    expect(git(dir, 'rev-parse', '--abbrev-ref', 'HEAD')).toBe('HEAD');
    expect(readFileSync(join(dir, '.git', 'config'), 'utf8')).toBe(config);
    expect(git(dir, 'status', '--porcelain')).toBe('');
    expect(existsSync(join(dir, '.git.todo-agent-new'))).toBe(false);
    await own.remove();
  }, 20_000);
});
