// The trusted snapshot: the base commit's tracked files and what was untracked at start, never what the work
// tree holds later (a branch checked out, a file the model rewrote).
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, readlink, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Snapshot } from '../../src/git/snapshot.js';

const roots: string[] = [];
afterAll(async () => {
  for (const root of roots) await rm(root, { recursive: true, force: true });
});

async function checkout(): Promise<{ ws: string; git: (...args: string[]) => string }> {
  const root = await mkdtemp(path.join(tmpdir(), 'snapshot-test-'));
  roots.push(root);
  const ws = path.join(root, 'ws');
  await mkdir(path.join(ws, 'tools'), { recursive: true });
  const git = (...args: string[]) =>
    execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], {
      cwd: ws,
      encoding: 'utf8',
    });
  git('init', '-q', '-b', 'main');
  await writeFile(path.join(ws, 'tools', 'server.mjs'), 'base server\n');
  await writeFile(path.join(ws, '.npmrc'), 'registry=https://npm.base.example/\n');
  await writeFile(path.join(ws, '.gitignore'), 'node_modules\n');
  git('add', '-A');
  git('commit', '-qm', 'base');
  await mkdir(path.join(ws, 'node_modules', 'dep'), { recursive: true });
  await writeFile(path.join(ws, 'node_modules', 'dep', 'index.js'), 'dep at start\n');
  await mkdir(path.join(ws, '.cargo'));
  await writeFile(path.join(ws, '.cargo', 'config.toml'), 'left by a setup step\n');
  return { ws, git };
}

describe('Snapshot', () => {
  it('keeps its links inside the copy: one that leads into the workspace leads to the same place in the copy', async () => {
    const { ws, git } = await checkout();
    await mkdir(path.join(ws, 'lib'));
    await writeFile(path.join(ws, 'lib', 'real.mjs'), 'base real\n');
    await symlink(path.join(ws, 'lib', 'real.mjs'), path.join(ws, 'tools', 'absolute.mjs'));
    await symlink('../lib/real.mjs', path.join(ws, 'tools', 'relative.mjs'));
    await symlink(`../../${path.basename(ws)}/lib/real.mjs`, path.join(ws, 'tools', 'climbing.mjs'));
    await symlink('/etc/hostname', path.join(ws, 'tools', 'runner.txt'));
    git('add', '-A');
    git('commit', '-qm', 'links');
    const base = git('rev-parse', 'HEAD').trim();
    const snapshot = await Snapshot.take({ workspace: ws, kind: 'git', copy: true, env: process.env });
    snapshot.setBase({ gitDir: path.join(ws, '.git'), commit: base });
    // The model rewrites the file the links name, in the live work tree.
    await writeFile(path.join(ws, 'lib', 'real.mjs'), 'the model wrote this\n');
    const dir = await snapshot.directory();
    for (const link of ['absolute.mjs', 'relative.mjs', 'climbing.mjs']) {
      expect(await readFile(path.join(dir, 'tools', link), 'utf8'), link).toBe('base real\n');
      expect(await readlink(path.join(dir, 'tools', link)), link).toBe('../lib/real.mjs');
    }
    // A link to the runner's files still leads there.
    expect(await readlink(path.join(dir, 'tools', 'runner.txt'))).toBe('/etc/hostname');
    await snapshot.remove();
  });

  it('holds the base commit and the untracked files as they stood at start, not the branch or later writes', async () => {
    const { ws, git } = await checkout();
    const base = git('rev-parse', 'HEAD').trim();
    const snapshot = await Snapshot.take({ workspace: ws, kind: 'git', copy: true, env: process.env });
    // What happens after the start: a branch checked out, the model's writes.
    git('checkout', '-qb', 'agent');
    await writeFile(path.join(ws, 'tools', 'server.mjs'), 'the model wrote this\n');
    await writeFile(path.join(ws, '.npmrc'), 'registry=https://npm.evil.example/\n');
    git('commit', '-qam', 'agent');
    await writeFile(path.join(ws, 'node_modules', 'dep', 'index.js'), 'the model wrote this\n');
    await writeFile(path.join(ws, '.cargo', 'config.toml'), 'the model wrote this\n');
    snapshot.setBase({ gitDir: path.join(ws, '.git'), commit: base });
    expect(await snapshot.committed('tools/server.mjs')).toBe('base server\n');
    expect(await snapshot.projectFiles()).toEqual({
      '.npmrc': 'registry=https://npm.base.example/\n',
      '.cargo/config.toml': 'left by a setup step\n',
    });
    const dir = await snapshot.directory();
    expect(await readFile(path.join(dir, 'tools', 'server.mjs'), 'utf8')).toBe('base server\n');
    expect(await readFile(path.join(dir, 'node_modules', 'dep', 'index.js'), 'utf8')).toBe('dep at start\n');
    await snapshot.remove();
    await expect(readFile(path.join(dir, '.npmrc'))).rejects.toThrow(/ENOENT/);
  });

  it('in the CLI, is the whole working directory as the run starts', async () => {
    const { ws } = await checkout();
    const snapshot = await Snapshot.take({ workspace: ws, kind: 'directory', copy: true, env: process.env });
    // The copy runs beside the start; the run waits for it before any server or tool can write (cli/main.ts).
    await snapshot.copyDone();
    await writeFile(path.join(ws, 'tools', 'server.mjs'), 'written during the run\n');
    await writeFile(path.join(ws, '.npmrc'), 'registry=https://npm.evil.example/\n');
    expect((await snapshot.projectFiles())['.npmrc']).toBe('registry=https://npm.base.example/\n');
    const dir = await snapshot.directory();
    expect(await readFile(path.join(dir, 'tools', 'server.mjs'), 'utf8')).toBe('base server\n');
    await snapshot.remove();
  });

  it('copies no untracked file unless asked at start: the directory then holds the base commit alone', async () => {
    const { ws, git } = await checkout();
    const snapshot = await Snapshot.take({ workspace: ws, kind: 'git', copy: false, env: process.env });
    snapshot.setBase({ gitDir: path.join(ws, '.git'), commit: git('rev-parse', 'HEAD').trim() });
    const dir = await snapshot.directory();
    expect(await readFile(path.join(dir, 'tools', 'server.mjs'), 'utf8')).toBe('base server\n');
    await expect(readFile(path.join(dir, 'node_modules', 'dep', 'index.js'))).rejects.toThrow(/ENOENT/);
    await snapshot.remove();
  });
});
