import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BOT_IDENTITY, GitError, GitRepo } from '../../src/git/repo.js';

// A test identity in the environment only, and no global or system config: nothing leaks in or out.
const env: NodeJS.ProcessEnv = {
  ...process.env,
  GIT_AUTHOR_NAME: 'Test Person',
  GIT_AUTHOR_EMAIL: 'test@example.com',
  GIT_COMMITTER_NAME: 'Test Person',
  GIT_COMMITTER_EMAIL: 'test@example.com',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_CONFIG_NOSYSTEM: '1',
};

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
}

/** The checked-out branch, as git itself says. */
function branchOf(dir: string): string {
  return git(dir, 'branch', '--show-current');
}

let root: string;
let origin: string;

/** A clone of the bare origin, as a runner's checkout would be. */
function clone(name: string): string {
  const dir = join(root, name);
  git(root, 'clone', '--quiet', origin, dir);
  return dir;
}

function write(dir: string, path: string, content: string): void {
  mkdirSync(join(dir, path, '..'), { recursive: true });
  writeFileSync(join(dir, path), content);
}

/** Commits everything in `dir` as the test identity, without the module under test. */
function commitAsTest(dir: string, message: string): string {
  git(dir, 'add', '--all');
  git(dir, 'commit', '--quiet', '--message', message);
  return git(dir, 'rev-parse', 'HEAD');
}

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'todo-agent-git-'));
  origin = join(root, 'origin.git');
  git(root, 'init', '--quiet', '--bare', '--initial-branch=main', origin);
  const seed = clone('seed');
  git(seed, 'symbolic-ref', 'HEAD', 'refs/heads/main');
  write(seed, 'README.md', '# hello\n');
  write(seed, '.gitignore', 'secret.env\nbuild/\n');
  commitAsTest(seed, 'initial');
  git(seed, 'push', '--quiet', 'origin', 'main');
});

afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

describe('GitRepo branches', () => {
  it('reads HEAD, creates a branch at HEAD and switches to it', async () => {
    const dir = clone('work');
    const repo = new GitRepo(dir, { env });
    const start = await repo.head();
    expect(start).toBe(git(dir, 'rev-parse', 'HEAD'));
    expect(start).toMatch(/^[0-9a-f]{40}$/);
    expect(branchOf(dir)).toBe('main');

    await repo.createBranch('agent/issue-1-99');
    expect(branchOf(dir)).toBe('agent/issue-1-99');
    expect(await repo.head()).toBe(start);
  });

  it('refuses to create a branch that already exists, as a GitError naming the command', async () => {
    const repo = new GitRepo(clone('work'), { env });
    const error = await repo.createBranch('main').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(GitError);
    expect((error as GitError).command).toBe('git switch --create main');
    expect((error as GitError).stderr).toContain('main');
    expect((error as GitError).exitCode).not.toBe(0);
  });

  it('refuses ref names that git would read as options, without running git', async () => {
    const dir = clone('work');
    const repo = new GitRepo(dir, { env });
    await expect(repo.createBranch('--orphan')).rejects.toThrow(/invalid ref name/);
    await expect(repo.push('')).rejects.toThrow(/invalid ref name/);
    expect(branchOf(dir)).toBe('main');
  });
});

describe('GitRepo changes', () => {
  it('sees tracked and untracked changes but not ignored files', async () => {
    const dir = clone('work');
    const repo = new GitRepo(dir, { env });
    expect(await repo.hasChanges()).toBe(false);

    write(dir, 'secret.env', 'KEY=1\n');
    write(dir, 'build/out.js', 'x\n');
    expect(await repo.hasChanges()).toBe(false);

    write(dir, 'README.md', '# hello, world\n');
    expect(await repo.hasChanges()).toBe(true);
  });

  it('reads many blobs from one process, binary safe and in the order asked', async () => {
    const dir = clone('work');
    const repo = new GitRepo(dir, { env });
    const binary = Buffer.from([0, 10, 255, 10, 10, 13, 0, 32]);
    writeFileSync(join(dir, 'bin.dat'), binary);
    write(dir, 'empty.txt', '');
    write(dir, 'text.md', 'one\ntwo lines\n');
    const id = (path: string) => git(dir, 'hash-object', '-w', path);
    const [b, e, t] = ['bin.dat', 'empty.txt', 'text.md'].map(id);
    const blobs = await repo.blobs([t!, b!, e!, t!]);
    expect(blobs.map((blob) => blob.toString('base64'))).toEqual(
      [Buffer.from('one\ntwo lines\n'), binary, Buffer.alloc(0), Buffer.from('one\ntwo lines\n')].map((x) =>
        x.toString('base64'),
      ),
    );
    expect(await repo.blobs([])).toEqual([]);
    await expect(repo.blobs(['0'.repeat(40)])).rejects.toThrow(/no blob/);
    await expect(repo.blobs(['HEAD'])).rejects.toThrow(/not an object id/);
  });

  it('lists what no commit holds by each path as it is: a space or a non-ASCII letter is not quoted', async () => {
    const dir = clone('work');
    write(dir, 'README.md', 'changed\n');
    write(dir, '.venv/lib/launcher manifest.xml', 'x\n');
    write(dir, 'docs/café.md', 'x\n');
    write(dir, 'secret.env', 'KEY=1\n'); // ignored: not listed
    const repo = new GitRepo(dir, { env });
    expect((await repo.uncommitted()).sort()).toEqual([
      '.venv/lib/launcher manifest.xml',
      'README.md',
      'docs/café.md',
    ]);
  });

  it('sees an untracked file alone as a change', async () => {
    const dir = clone('work');
    write(dir, 'notes.txt', 'n\n');
    const repo = new GitRepo(dir, { env });
    expect(await repo.hasChanges()).toBe(true);
  });
});

describe('GitRepo.commitAll', () => {
  it('commits everything not ignored as the bot, even when the environment names someone else', async () => {
    const dir = clone('work');
    const repo = new GitRepo(dir, { env });
    const before = await repo.head();
    write(dir, 'README.md', '# changed\n');
    write(dir, 'docs/guide.md', 'guide\n');
    write(dir, 'secret.env', 'KEY=1\n');

    const sha = await repo.commitAll('Fix the README\n\nBody line.');
    expect(sha).toBe(git(dir, 'rev-parse', 'HEAD'));
    expect(sha).not.toBe(before);
    const bot = `${BOT_IDENTITY.name} <${BOT_IDENTITY.email}>`;
    expect(git(dir, 'log', '-1', '--format=%an <%ae>')).toBe(bot);
    expect(git(dir, 'log', '-1', '--format=%cn <%ce>')).toBe(bot);
    expect(git(dir, 'log', '-1', '--format=%B')).toBe('Fix the README\n\nBody line.');
    expect(git(dir, 'show', '--name-only', '--format=', 'HEAD').split('\n').sort()).toEqual([
      'README.md',
      'docs/guide.md',
    ]);
    // The ignored file is still there, just not committed.
    expect(git(dir, 'status', '--porcelain', '--ignored')).toBe('!! secret.env');
    expect(await repo.hasChanges()).toBe(false);
  });

  it('uses a given identity', async () => {
    const dir = clone('work');
    const repo = new GitRepo(dir, { env, identity: { name: 'Custom Bot', email: 'bot@example.org' } });
    write(dir, 'a.txt', 'a\n');
    await repo.commitAll('add a');
    expect(git(dir, 'log', '-1', '--format=%an <%ae>')).toBe('Custom Bot <bot@example.org>');
  });

  it('returns undefined and makes no commit when there is nothing to commit', async () => {
    const dir = clone('work');
    const repo = new GitRepo(dir, { env });
    const before = await repo.head();
    write(dir, 'secret.env', 'only ignored\n');
    expect(await repo.commitAll('nothing')).toBeUndefined();
    expect(await repo.head()).toBe(before);
  });

  it('leaves out a nested repository without a commit (git refuses to add one) and commits the rest', async () => {
    const dir = clone('work');
    const repo = new GitRepo(dir, { env });
    write(dir, 'work.txt', 'work\n');
    for (const empty of ['empty', 'deep/er']) {
      mkdirSync(join(dir, empty), { recursive: true });
      git(join(dir, empty), 'init', '--quiet');
      write(dir, `${empty}/x.txt`, 'x\n');
    }
    const sha = await repo.commitAll('work');
    expect(git(dir, 'show', '--name-only', '--format=', sha!)).toBe('work.txt');
    expect((await repo.uncommitted()).sort()).toEqual(['deep/er/', 'empty/']);
  });

  it('never stages an excluded file, such as a credentials file an earlier step wrote', async () => {
    const dir = clone('work');
    const creds = join(dir, 'gha-creds-1a2b.json');
    const repo = new GitRepo(dir, {
      env,
      exclude: [creds, join(root, 'elsewhere.json'), join(dir, 'x', '[y].json')],
    });
    write(dir, 'gha-creds-1a2b.json', '{"type":"external_account"}\n');
    write(dir, 'x/[y].json', '{}\n');
    expect(await repo.hasChanges()).toBe(false);
    expect(await repo.commitAll('nothing')).toBeUndefined();

    write(dir, 'a.txt', 'a\n');
    expect(await repo.hasChanges()).toBe(true);
    await repo.commitAll('add a');
    expect(git(dir, 'show', '--name-only', '--format=', 'HEAD')).toBe('a.txt');
    expect(git(dir, 'status', '--porcelain')).toBe('?? gha-creds-1a2b.json\n?? x/');
  });

  it('commits despite a failing pre-commit hook and a gpgsign setting', async () => {
    const dir = clone('work');
    const hook = join(dir, '.git', 'hooks', 'pre-commit');
    writeFileSync(hook, '#!/bin/sh\nexit 1\n');
    chmodSync(hook, 0o755);
    git(dir, 'config', 'commit.gpgsign', 'true');
    write(dir, 'a.txt', 'a\n');
    expect(await new GitRepo(dir, { env }).commitAll('add a')).toBe(git(dir, 'rev-parse', 'HEAD'));
  });
});

describe('GitRepo remote', () => {
  it('pushes HEAD to a new remote branch, which then exists', async () => {
    const dir = clone('work');
    const repo = new GitRepo(dir, { env });
    await repo.createBranch('agent/issue-7-1');
    write(dir, 'a.txt', 'a\n');
    const sha = await repo.commitAll('add a');

    expect(await repo.remoteBranchExists('agent/issue-7-1')).toBe(false);
    expect(await repo.push('agent/issue-7-1')).toEqual({ ok: true });
    expect(git(origin, 'rev-parse', 'refs/heads/agent/issue-7-1')).toBe(sha);
    expect(await repo.remoteBranchExists('agent/issue-7-1')).toBe(true);
    // Exact names only: ls-remote matches by path suffix, and this branch's path ends in refs/heads/issue-7-1.
    expect(await repo.push('x/refs/heads/issue-7-1')).toEqual({ ok: true });
    expect(await repo.remoteBranchExists('issue-7-1')).toBe(false);
  });

  it('reports a non-fast-forward push as rejected', async () => {
    const first = clone('first');
    const second = clone('second');
    write(first, 'a.txt', 'first\n');
    commitAsTest(first, 'first');
    git(first, 'push', '--quiet', 'origin', 'HEAD:refs/heads/shared');

    const repo = new GitRepo(second, { env });
    write(second, 'a.txt', 'second\n');
    await repo.commitAll('second');
    const result = await repo.push('shared');
    expect(result).toMatchObject({ ok: false, rejected: true });
    expect(!result.ok && result.message).toContain(
      'git push --porcelain --no-verify origin HEAD:refs/heads/shared',
    );
  });

  it('reports a refusal by the server as not rejected', async () => {
    const hook = join(origin, 'hooks', 'pre-receive');
    writeFileSync(hook, '#!/bin/sh\necho "protected by policy" >&2\nexit 1\n');
    chmodSync(hook, 0o755);
    const dir = clone('work');
    const result = await new GitRepo(dir, { env }).push('anything');
    expect(result).toMatchObject({ ok: false, rejected: false });
    expect(!result.ok && result.message).toContain('protected by policy');
  });

  it('reports an unreachable origin as a failure, not a rejection', async () => {
    const dir = clone('work');
    git(dir, 'remote', 'set-url', 'origin', join(root, 'missing.git'));
    const result = await new GitRepo(dir, { env }).push('main');
    expect(result).toMatchObject({ ok: false, rejected: false });
    expect(!result.ok && result.message).toMatch(/missing\.git/);
  });

  it('checks out a branch pushed from another clone, tracking origin', async () => {
    const other = clone('other');
    const dir = clone('work'); // cloned before the branch exists
    git(other, 'switch', '--quiet', '--create', 'agent/issue-3-5');
    write(other, 'b.txt', 'b\n');
    const pushed = commitAsTest(other, 'add b');
    git(other, 'push', '--quiet', 'origin', 'agent/issue-3-5');

    const repo = new GitRepo(dir, { env });
    await repo.checkoutRemoteBranch('agent/issue-3-5');
    expect(branchOf(dir)).toBe('agent/issue-3-5');
    expect(await repo.head()).toBe(pushed);
    expect(git(dir, 'rev-parse', '--abbrev-ref', 'agent/issue-3-5@{upstream}')).toBe(
      'origin/agent/issue-3-5',
    );

    // Work continues on it and pushes fast-forward.
    write(dir, 'c.txt', 'c\n');
    const next = await repo.commitAll('add c');
    expect(await repo.push('agent/issue-3-5')).toEqual({ ok: true });
    expect(git(origin, 'rev-parse', 'refs/heads/agent/issue-3-5')).toBe(next);
  });

  it('finds origin’s tip of a branch the checkout lacks by fetching it, without switching to it', async () => {
    const dir = clone('work');
    const mainSha = git(dir, 'rev-parse', 'HEAD');
    // As a pull request event's checkout: a detached commit, and no remote-tracking ref for main.
    git(dir, 'switch', '--quiet', '--detach');
    git(dir, 'update-ref', '-d', 'refs/remotes/origin/main');
    const repo = new GitRepo(dir, { env });
    expect(await repo.remoteTip('main')).toBe(mainSha);
    expect(git(dir, 'rev-parse', 'refs/remotes/origin/main')).toBe(mainSha);
    expect(await repo.remoteTip('no-such-branch')).toBeUndefined();
  });

  it('fails with a GitError when the remote branch does not exist', async () => {
    const dir = clone('work');
    const repo = new GitRepo(dir, { env });
    await expect(repo.checkoutRemoteBranch('no-such-branch')).rejects.toBeInstanceOf(GitError);
    expect(branchOf(dir)).toBe('main');
  });
});

describe('GitError', () => {
  it('scrubs URL credentials from the command and the message, and trims stderr', () => {
    const error = new GitError(
      ['push', 'https://x-access-token:hunter2secret@github.com/o/r.git'],
      "  fatal: unable to access 'https://user:pa55word@github.com/o/r.git/'\n\n",
      128,
    );
    expect(error.message).not.toMatch(/hunter2secret|pa55word/);
    expect(error.command).toBe('git push https://***@github.com/o/r.git');
    expect(error.stderr).toBe("fatal: unable to access 'https://***@github.com/o/r.git/'");
    expect(error.message).toContain('(exit 128)');
  });

  it('masks token-shaped strings', () => {
    const token = `ghp_${'a'.repeat(36)}`;
    expect(new GitError(['fetch'], `bad header: Authorization: basic ${token}`).message).not.toContain(token);
  });
});
