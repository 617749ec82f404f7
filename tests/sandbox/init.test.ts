// The sandbox's scripts, outside any namespace: each parses as the shell or perl that runs it; the env-file
// helper hands its program exactly the file's environment and removes the file; and the git guard refuses a
// repository the tools made inside the workspace while it lets the workspace's own and any outside it work.
// The scripts at work inside the namespaces are run by tests/sandbox/setup.test.ts and the MCP tests.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CALL, ENV_FILE_PL, GIT_GUARD, IDMAP_PL, KEYRING_PL, TEMPLATE } from '../../src/sandbox/init.js';
import { useTempDir } from '../support/temp-dir.js';

const tempDir = useTempDir('sandbox-init');

describe('the scripts', () => {
  /** How each script is checked without running it, and what a clean check prints. */
  const check = {
    sh: (script: string) => spawnSync('sh', ['-n', '-c', script], { encoding: 'utf8' }),
    perl: (script: string) => spawnSync('perl', ['-c', '-e', script], { encoding: 'utf8' }),
  };
  const clean = { sh: '', perl: '-e syntax OK' };

  it.each([
    ['TEMPLATE', 'sh', TEMPLATE],
    ['CALL', 'sh', CALL],
    ['GIT_GUARD', 'sh', GIT_GUARD],
    ['IDMAP_PL', 'perl', IDMAP_PL],
    ['KEYRING_PL', 'perl', KEYRING_PL],
    ['ENV_FILE_PL', 'perl', ENV_FILE_PL],
  ] as const)('%s parses as %s', (_name, language, script) => {
    const checked = check[language](script);
    expect(checked.stderr.trim()).toBe(clean[language]);
    expect(checked.status).toBe(0);
  });
});

describe('ENV_FILE_PL', () => {
  it("runs the program with exactly the file's environment, values with = and newlines kept, and removes the file", async () => {
    const file = join(tempDir(), 'env');
    await writeFile(file, 'A=1\0B=x=y\0C=two\nlines\0', { mode: 0o600 });
    const out = execFileSync('perl', ['-e', ENV_FILE_PL, file, '/usr/bin/env', '-0'], {
      env: { PATH: process.env.PATH, LEAKED: 'no' },
      encoding: 'utf8',
    });
    expect(out.split('\0').filter(Boolean).sort()).toEqual(['A=1', 'B=x=y', 'C=two\nlines']);
    expect(existsSync(file)).toBe(false);
  });
});

describe('GIT_GUARD', () => {
  /** The guard, its state in a directory of the test's, over the real git, for `workspace`. */
  async function guard() {
    const root = tempDir();
    const dir = join(root, 'guard');
    const workspace = join(root, 'ws');
    await mkdir(dir);
    await symlink(
      execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim(),
      join(dir, 'real'),
    );
    await writeFile(join(dir, 'workspace'), workspace);
    await writeFile(join(dir, 'allowed'), join(workspace, '.git'));
    const script = join(root, 'git');
    expect(GIT_GUARD).toContain('guard=/tmp/todo-agent-git\n');
    await writeFile(script, GIT_GUARD.replace('guard=/tmp/todo-agent-git', `guard=${dir}`), { mode: 0o755 });
    const env = {
      PATH: process.env.PATH,
      HOME: root,
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_CONFIG_GLOBAL: '/dev/null',
    };
    const git = (cwd: string, ...args: string[]) => spawnSync(script, args, { cwd, env, encoding: 'utf8' });
    execFileSync('git', ['init', '-q', workspace], { env });
    await mkdir(join(workspace, 'sub'));
    execFileSync('git', ['init', '-q', join(workspace, 'sub')], { env });
    await mkdir(join(root, 'outside'));
    execFileSync('git', ['init', '-q', join(root, 'outside')], { env });
    return { root, workspace, git };
  }

  it("works in the workspace's own repository and in one outside the workspace", async () => {
    const { root, workspace, git } = await guard();
    const own = git(workspace, 'rev-parse', '--show-toplevel');
    expect(own.status).toBe(0);
    expect(own.stdout.trim()).toBe(workspace);
    expect(git(join(root, 'outside'), 'status', '--short').status).toBe(0);
  });

  it('refuses a repository the tools made inside the workspace, however git is pointed at it', async () => {
    const { workspace, git } = await guard();
    const nested = git(join(workspace, 'sub'), 'status');
    expect(nested.status).toBe(128);
    expect(nested.stderr).toContain('is a repository the workspace holds that is not its own');
    expect(git(workspace, '-C', 'sub', 'status').status).toBe(128);
    expect(git(workspace, '--git-dir', 'sub/.git', 'log').status).toBe(128);
  });
});
