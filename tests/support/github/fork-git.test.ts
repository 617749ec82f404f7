// The emulator's forks (fork-git.ts) driven by a plain git over HTTPS: who may push where, and the
// origin's refs/pull/N/head following a pushed head, as GitHub does.
import { execFile, execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { git, useGitScratch, WHO, type GitScratch } from '../git-fixture.js';
import type { EmulatorOptions } from './types.js';
import { TEST_TOKEN, useEmulatorPerTest } from './per-test.js';

const startEmulator = useEmulatorPerTest();
let scratch: GitScratch;
useGitScratch('fork-git-', (made) => {
  scratch = made;
});
let forks: string;
let fork: string;
let head: string;
beforeEach(() => {
  // The origin, and the fork's repository with its `feature` branch one commit on.
  git(scratch.root, 'init', '-q', '--bare', '--initial-branch=main', scratch.origin);
  git(scratch.root, 'init', '-q', '--initial-branch=main', scratch.dir);
  writeFileSync(join(scratch.dir, 'a.txt'), 'a\n');
  git(scratch.dir, 'add', '-A');
  git(scratch.dir, ...WHO, 'commit', '-qm', 'a');
  git(scratch.dir, 'push', '-q', scratch.origin, 'main');
  forks = join(scratch.root, 'forks');
  fork = join(forks, 'contributor', 'hello-world.git');
  mkdirSync(join(forks, 'contributor'), { recursive: true });
  git(scratch.root, 'clone', '-q', '--bare', scratch.origin, fork);
  git(scratch.dir, ...WHO, 'commit', '-q', '--allow-empty', '-m', 'theirs');
  head = git(scratch.dir, 'rev-parse', 'HEAD');
  git(scratch.dir, 'push', '-q', fork, 'HEAD:refs/heads/feature', 'HEAD:refs/heads/other');
  git(scratch.dir, 'push', '-q', scratch.origin, 'HEAD:refs/pull/1/head');
  git(scratch.dir, ...WHO, 'commit', '-q', '--allow-empty', '-m', 'ours');
});

/** The emulator with pull request 1 from contributor's `feature`. */
async function emulator(canModify: boolean, options: EmulatorOptions = {}) {
  const emu = await startEmulator({
    remoteDir: scratch.origin,
    forksDir: forks,
    permissions: { 'agent-machine-user': 'write', reader: 'read' },
    issues: [
      {
        number: 1,
        title: 'Theirs',
        user: 'contributor',
        pull_request: { head: 'feature', fork: { owner: 'contributor', maintainerCanModify: canModify } },
      },
    ],
    ...options,
  });
  const ca = join(scratch.root, 'ca.pem');
  writeFileSync(ca, emu.forks!.certificate);
  return { emu, ca };
}

/**
 * A plain git push of HEAD to the fork's `branch`, with `token` as git sends it; its exit and stderr. Never a
 * synchronous child: the emulator that answers it runs in this process.
 */
function push(url: string, ca: string, branch: string, token = TEST_TOKEN, repo = 'contributor/hello-world') {
  const header = `AUTHORIZATION: basic ${Buffer.from(`x-access-token:${token}`).toString('base64')}`;
  const args = ['-c', `http.extraheader=${header}`, 'push', `${url}/${repo}.git`];
  return new Promise<{ code: number; stderr: string }>((resolve) => {
    execFile(
      'git',
      [...args, `HEAD:refs/heads/${branch}`],
      { cwd: scratch.dir, env: { ...process.env, GIT_SSL_CAINFO: ca, GIT_TERMINAL_PROMPT: '0' } },
      (error, _stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stderr }),
    );
  });
}
const tip = (dir: string, ref: string) =>
  execFileSync('git', ['--git-dir', dir, 'rev-parse', ref], { encoding: 'utf8' }).trim();

describe("the emulator's forks", () => {
  it("let a maintainer's token push to the head of a pull request that allows edits, and refs/pull/N/head follows", async () => {
    const { emu, ca } = await emulator(true, { tokenUser: 'agent-machine-user' });
    const ours = git(scratch.dir, 'rev-parse', 'HEAD');
    expect((await push(emu.forks!.url, ca, 'feature')).code).toBe(0);
    expect(tip(fork, 'refs/heads/feature')).toBe(ours);
    expect(tip(scratch.origin, 'refs/pull/1/head')).toBe(ours);
    // Another branch of the fork is not the pull request's: refused, left as it was.
    const other = await push(emu.forks!.url, ca, 'other');
    expect(other.code).not.toBe(0);
    expect(other.stderr).toContain('not the head of a pull request that allows edits from maintainers');
    expect(tip(fork, 'refs/heads/other')).toBe(head);
    expect(emu.forkPushes.every((call) => call.allowed && call.login === 'agent-machine-user')).toBe(true);
    expect(emu.violations).toEqual([]);
  });

  it.each([
    [
      'the contributor does not allow edits',
      false,
      { tokenUser: 'agent-machine-user' },
      'agent-machine-user',
    ],
    ["the token is the workflow's", true, {}, 'github-actions[bot]'],
    ["the token is an app's", true, { appBot: 'todo-app[bot]' }, 'todo-app[bot]'],
    ['the token is of someone without write access', true, { tokenUser: 'reader' }, 'reader'],
  ] as const)('refuse a push with 403 when %s', async (_why, canModify, options, login) => {
    const { emu, ca } = await emulator(canModify, options);
    const refused = await push(emu.forks!.url, ca, 'feature');
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain(`Permission to contributor/hello-world.git denied to ${login}`);
    expect(refused.stderr).toContain('403');
    expect(tip(fork, 'refs/heads/feature')).toBe(head);
    expect(emu.forkPushes).toEqual([{ repo: 'contributor/hello-world', login, allowed: false }]);
  });

  it('answer a push to a repository the fork is not (another name) as GitHub does: not found', async () => {
    const { emu, ca } = await emulator(true, { tokenUser: 'agent-machine-user' });
    const refused = await push(emu.forks!.url, ca, 'feature', TEST_TOKEN, 'contributor/other-name');
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/not found/i);
    expect(tip(fork, 'refs/heads/feature')).toBe(head);
    expect(emu.forkPushes).toEqual([]);
  });

  it('refuse a token that is not the one it was given (401), pushing nothing', async () => {
    const { emu, ca } = await emulator(true, { tokenUser: 'agent-machine-user', token: TEST_TOKEN });
    expect((await push(emu.forks!.url, ca, 'feature', 'ghp_notTheToken')).code).not.toBe(0);
    expect(tip(fork, 'refs/heads/feature')).toBe(head);
  });
});
