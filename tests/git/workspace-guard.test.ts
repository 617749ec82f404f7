import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { saveConfig, type SavedConfig } from '../../src/git/config-guard.js';
import { reserveGitDir, type OwnGitDir } from '../../src/git/own-git-dir.js';
import { GitRepo } from '../../src/git/repo.js';
import {
  repairGitDirs,
  repairAfterKill,
  repairSentences,
  WorkspaceGuard,
  type RepairOptions,
} from '../../src/git/workspace-guard.js';
import { asNotRoot, git, GIT_ENV, shallowCloneOfSeeded, useGitScratch } from '../support/git-fixture.js';

const env = GIT_ENV;

const scratch = useGitScratch('todo-agent-guard-', () => {
  shallowCloneOfSeeded(scratch, 2);
  chmodSync(scratch.root, 0o755);
});

/** What a run has before its first tool call: the saved configuration and our own git directory, filled. */
async function beforeTools(): Promise<{ own: OwnGitDir; saved: SavedConfig; options: RepairOptions }> {
  const own = await reserveGitDir({ RUNNER_TEMP: scratch.root });
  const saved = await saveConfig(scratch.dir, own.path);
  const repo = await own.adopt(new GitRepo(scratch.dir, { env }), { env });
  return { own, saved, options: { workspace: scratch.dir, ownGitDir: own.path, saved, git: repo, env } };
}

/** The model's armed configuration: a later step's status, an alias. */
function arm(gitDir: string): void {
  git(
    scratch.dir,
    `--git-dir=${gitDir}`,
    'config',
    'core.fsmonitor',
    `touch ${scratch.marks}/fsmonitor; false`,
  );
  git(scratch.dir, `--git-dir=${gitDir}`, 'config', 'alias.st', `!touch ${scratch.marks}/alias`);
}

/** A later step's plain git. */
function laterStep(cwd: string): void {
  for (const args of [['status'], ['st'], ['log', '-1']])
    spawnSync('git', args, { cwd, env: { ...env, GIT_PAGER: 'cat' }, stdio: 'ignore' });
}

describe('repairGitDirs', () => {
  it('replaces a .git moved away behind a link by a clean one, and disarms the moved one, never trusting it', async () => {
    const { options } = await beforeTools();
    const config = readFileSync(join(scratch.dir, '.git', 'config'), 'utf8');
    const shallow = readFileSync(join(scratch.dir, '.git', 'shallow'), 'utf8');
    const head = git(scratch.dir, 'rev-parse', 'HEAD');
    const hooks = readdirSync(join(scratch.dir, '.git', 'hooks')).sort();
    arm(join(scratch.dir, '.git'));
    writeFileSync(join(scratch.dir, 'f1.txt'), 'work\n');
    mkdirSync(join(scratch.dir, 'node_modules'));
    renameSync(join(scratch.dir, '.git'), join(scratch.dir, 'node_modules', '.g'));
    symlinkSync('node_modules/.g', join(scratch.dir, '.git'));

    const report = await repairGitDirs(options);

    expect(report.remade).toBe(true);
    expect(report.configs).toEqual(['node_modules/.g/config']);
    expect(lstatSync(join(scratch.dir, '.git')).isDirectory()).toBe(true);
    expect(readFileSync(join(scratch.dir, '.git', 'config'), 'utf8')).toBe(config);
    expect(readFileSync(join(scratch.dir, '.git', 'shallow'), 'utf8')).toBe(shallow);
    expect(git(scratch.dir, 'rev-parse', 'HEAD')).toBe(head);
    expect(git(scratch.dir, 'symbolic-ref', 'HEAD')).toBe('refs/heads/main');
    // The index is HEAD's: the work tree's change shows as one, nothing else does.
    expect(git(scratch.dir, 'status', '--porcelain', '--untracked-files=no')).toBe('M f1.txt');
    expect(readdirSync(join(scratch.dir, '.git', 'hooks')).sort()).toEqual(hooks);
    laterStep(scratch.dir);
    laterStep(join(scratch.dir, 'node_modules', '.g'));
    expect(readdirSync(scratch.marks)).toEqual([]);
    expect(repairSentences(report)).toContain(
      "The workspace's .git was not a directory: a clean one was made in its place.",
    );
  });

  it('replaces a .git file pointing out of the workspace, and leaves what it named alone', async () => {
    const { options } = await beforeTools();
    const originConfig = readFileSync(join(scratch.origin, 'config'), 'utf8');
    rmSync(join(scratch.dir, '.git'), { recursive: true });
    writeFileSync(join(scratch.dir, '.git'), `gitdir: ${scratch.origin}\n`);

    const report = await repairGitDirs(options);

    expect(report.remade).toBe(true);
    expect(lstatSync(join(scratch.dir, '.git')).isDirectory()).toBe(true);
    expect(readFileSync(join(scratch.origin, 'config'), 'utf8')).toBe(originConfig);
    expect(git(scratch.dir, 'log', '--format=%s', '-1')).toBe('c2');
  });

  it('makes a .git where the model left none', async () => {
    const { options } = await beforeTools();
    rmSync(join(scratch.dir, '.git'), { recursive: true });
    expect((await repairGitDirs(options)).remade).toBe(true);
    expect(git(scratch.dir, 'status', '--porcelain')).toBe('');
  });

  it('puts the configuration back past what the model made unremovable, as the workspace’s owner', async () => {
    const { options } = await beforeTools();
    const config = readFileSync(join(scratch.dir, '.git', 'config'), 'utf8');
    arm(join(scratch.dir, '.git'));
    mkdirSync(join(scratch.dir, '.git', 'hooks', 'zz.d', 'x'), { recursive: true });
    chmodSync(join(scratch.dir, '.git', 'hooks', 'zz.d'), 0o000);

    const report = await asNotRoot([scratch.dir, options.ownGitDir], () => repairGitDirs(options));

    expect(report).toMatchObject({ remade: false, resisted: { left: [], unread: [] } });
    expect(readFileSync(join(scratch.dir, '.git', 'config'), 'utf8')).toBe(config);
    expect(existsSync(join(scratch.dir, '.git', 'hooks', 'zz.d'))).toBe(false);
    laterStep(scratch.dir);
    expect(readdirSync(scratch.marks)).toEqual([]);
  });

  it('without our own git directory, cannot make a clean .git: says why, and disarms what is there', async () => {
    const { own, options } = await beforeTools();
    arm(join(scratch.dir, '.git'));
    renameSync(join(scratch.dir, '.git'), join(scratch.dir, '.gitstore'));
    symlinkSync('.gitstore', join(scratch.dir, '.git'));
    await own.remove();

    const report = await repairGitDirs(options);

    expect(report.remade).toBe(false);
    expect(report.notRemade).toBeDefined();
    expect(report.configs).toEqual(['.gitstore/config']);
    laterStep(scratch.dir);
    expect(readdirSync(scratch.marks)).toEqual([]);
  });
});

describe('repairAfterKill', () => {
  it('reads what was saved from our own git directory, as the post step of a killed run does', async () => {
    const { own } = await beforeTools();
    const config = readFileSync(join(scratch.dir, '.git', 'config'), 'utf8');
    arm(join(scratch.dir, '.git'));
    renameSync(join(scratch.dir, '.git'), join(scratch.dir, '.gitstore'));
    symlinkSync('.gitstore', join(scratch.dir, '.git'));

    const report = await repairAfterKill({ workspace: scratch.dir, ownGitDir: own.path });

    expect(report.remade).toBe(true);
    expect(readFileSync(join(scratch.dir, '.git', 'config'), 'utf8')).toBe(config);
    laterStep(scratch.dir);
    laterStep(join(scratch.dir, '.gitstore'));
    expect(readdirSync(scratch.marks)).toEqual([]);
  });
});

describe('WorkspaceGuard', () => {
  /** The guard of a run before its first tool call, and what it told (in order). */
  async function armed() {
    const { own, options } = await beforeTools();
    const told: string[] = [];
    const guard = WorkspaceGuard.arm({
      ...options,
      ownDir: own,
      tell: {
        armed: () => told.push('armed'),
        repaired: (sentences) => told.push(`repaired: ${sentences.join(' ')}`),
        failed: (why) => told.push(`failed: ${why}`),
      },
    });
    return { guard, own, told };
  }

  it('is armed once made, and repairs once, whoever asks first, telling what it changed', async () => {
    const { guard, told } = await armed();
    expect(told).toEqual(['armed']);
    git(scratch.dir, 'init', '-q', 'nested');
    arm(join(scratch.dir, 'nested', '.git'));
    const [one, two] = await Promise.all([guard.repair(), guard.repair()]);
    expect(two).toBe(one);
    expect(await guard.repair()).toBe(one);
    expect(one.configs).toHaveLength(1);
    expect(told).toEqual(['armed', `repaired: ${repairSentences(one).join(' ')}`]);
    expect(told[1]).toMatch(/Cut nested git configuration down to inert settings: .*nested/);
  });

  it('finishes by putting right what nobody did, then removes our own git directory; a second finish does nothing', async () => {
    const { guard, own, told } = await armed();
    arm(join(scratch.dir, '.git'));
    await guard.finish();
    await guard.finish();
    expect(told).toEqual(['armed', 'repaired: ']);
    expect(existsSync(own.path)).toBe(false);
    laterStep(scratch.dir);
    expect(readdirSync(scratch.marks)).toEqual([]);
  });

  it('leaves our own git directory for the post step when putting right failed, and says why', async () => {
    // Two runs' guards of one workspace that then vanishes: realpath fails, nothing can be repaired.
    const asked = await armed();
    const unasked = await armed();
    rmSync(scratch.dir, { recursive: true, force: true });
    await expect(asked.guard.repair()).rejects.toThrow();
    await asked.guard.finish();
    expect(asked.told).toEqual(['armed']);
    expect(existsSync(asked.own.path)).toBe(true);
    // The job's end, after a throw before delivery: it tries once and says why it could not.
    await unasked.guard.finish();
    expect(unasked.told).toEqual(['armed', expect.stringMatching(/^failed: .+/)]);
    expect(existsSync(unasked.own.path)).toBe(true);
  });
});
