// Our git and nothing else, run on a real repository: a hook the repository configures never runs, the
// environment that would steer git is dropped, credentials never reach an error, and blobs come back whole.
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  GitError,
  gitEnv,
  lockdownEnv,
  readBlobs,
  runGit,
  scrubCredentials,
} from '../../src/git/git-process.js';
import { useWorkTree } from '../support/delivery-fixture.js';
import { git } from '../support/git-fixture.js';

const tree = useWorkTree('git-process-', { 'a.txt': 'one\n', 'b.bin': '\u0000\u0001two' });

describe('runGit', () => {
  it('runs no hook and no pager the repository configures, and reports a failing exit code without throwing', async () => {
    const { dir } = tree;
    const ran = join(dir, 'hook-ran');
    writeFileSync(join(dir, '.git/hooks/pre-commit'), `#!/bin/sh\ntouch ${ran}\n`, { mode: 0o755 });
    git(dir, 'config', 'core.pager', `touch ${ran}`);
    const env = gitEnv({
      ...process.env,
      GIT_AUTHOR_NAME: 'T',
      GIT_AUTHOR_EMAIL: 't@example.com',
      GIT_COMMITTER_NAME: 'T',
      GIT_COMMITTER_EMAIL: 't@example.com',
    });
    writeFileSync(join(dir, 'a.txt'), 'two\n');
    expect((await runGit(dir, env, ['commit', '-qam', 'change'])).code).toBe(0);
    expect((await runGit(dir, env, ['log', '-1', '--format=%s'])).stdout.trim()).toBe('change');
    expect(existsSync(ran)).toBe(false);
    const missing = await runGit(dir, env, ['rev-parse', '--verify', 'no-such-branch']);
    expect(missing.code).toBeGreaterThan(0);
  });

  it('throws a GitError, credentials scrubbed, only when git could not run to the end', async () => {
    const error = await runGit('/no/such/dir', gitEnv(process.env), [
      'fetch',
      'https://user:hunter2@git.example/r',
    ]).then(
      () => undefined,
      (failure: unknown) => failure,
    );
    expect(error).toBeInstanceOf(GitError);
    expect((error as GitError).command).toBe('git fetch https://***@git.example/r');
    expect((error as GitError).message).not.toContain('hunter2');
    expect((error as GitError).exitCode).toBeUndefined();
  });
});

describe('gitEnv', () => {
  it('drops what would point git elsewhere or make it run something, and names our directory when given', () => {
    const steering = { GIT_DIR: '/evil', GIT_SSH_COMMAND: 'evil', GIT_CONFIG_KEY_0: 'core.pager' };
    const env = gitEnv(
      { PATH: '/bin', ...steering, GIT_CONFIG_VALUE_0: 'evil' },
      { gitDir: '/own/.git', workTree: '/work' },
    );
    expect(env).toEqual({
      PATH: '/bin',
      GIT_TERMINAL_PROMPT: '0',
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_CONFIG_GLOBAL: '/dev/null',
      GIT_DIR: '/own/.git',
      GIT_WORK_TREE: '/work',
    });
  });

  it('gives a git we do not start the lockdown as variables, with plain ssh and the runner’s protocols', () => {
    const env = lockdownEnv();
    const settings = Array.from({ length: Number(env.GIT_CONFIG_COUNT) }, (_, i) => [
      env[`GIT_CONFIG_KEY_${i}`],
      env[`GIT_CONFIG_VALUE_${i}`],
    ]);
    expect(settings).toContainEqual(['core.hooksPath', '/dev/null']);
    expect(settings).toContainEqual(['core.sshCommand', 'ssh']);
    expect(settings.some(([key]) => key!.startsWith('protocol.'))).toBe(false);
  });
});

describe('readBlobs', () => {
  it('reads many blobs byte for byte, in the order asked, from one process', async () => {
    const { dir } = tree;
    const [a, b] = ['a.txt', 'b.bin'].map((path) => git(dir, 'rev-parse', `HEAD:${path}`));
    const blobs = await readBlobs(dir, gitEnv(process.env), [b!, a!, b!]);
    expect(blobs.map((blob) => blob.toString('latin1'))).toEqual([
      '\u0000\u0001two',
      'one\n',
      '\u0000\u0001two',
    ]);
    expect(await readBlobs(dir, gitEnv(process.env), [])).toEqual([]);
    await expect(readBlobs(dir, gitEnv(process.env), ['HEAD'])).rejects.toThrow('not an object id: HEAD');
  });
});

describe('scrubCredentials', () => {
  it('hides the user and secret of any URL', () => {
    expect(
      scrubCredentials('fatal: https://x-access-token:ghs_abc@github.example/o/r.git and ssh://git@h/x'),
    ).toBe('fatal: https://***@github.example/o/r.git and ssh://***@h/x');
  });
});
