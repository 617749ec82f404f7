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
import {
  asNotRoot,
  cloneNewOrigin,
  commitFiles,
  git,
  GIT_ENV,
  useGitScratch,
} from '../support/git-fixture.js';

const env = GIT_ENV;

let root: string;
let origin: string;
let dir: string;
let marks: string;

useGitScratch('todo-agent-guard-', (scratch) => {
  ({ root, origin, dir, marks } = scratch);
  const seed = join(root, 'seed');
  cloneNewOrigin(scratch, seed);
  for (const n of [1, 2]) commitFiles(seed, { [`f${n}.txt`]: `${n}\n` }, `c${n}`);
  git(seed, 'push', '-q', 'origin', 'main');
  // What actions/checkout gives with its default fetch-depth: 1.
  git(root, 'clone', '--quiet', '--depth', '1', `file://${origin}`, dir);
  chmodSync(root, 0o755);
});

/** What a run has before its first tool call: the saved configuration and our own git directory, filled. */
async function beforeTools(): Promise<{ own: OwnGitDir; saved: SavedConfig; options: RepairOptions }> {
  const own = await reserveGitDir({ RUNNER_TEMP: root });
  const saved = await saveConfig(dir, own.path);
  const repo = await own.adopt(new GitRepo(dir, { env }), { env });
  return { own, saved, options: { workspace: dir, ownGitDir: own.path, saved, git: repo, env } };
}

/** The model's armed configuration: a later step's status, an alias. */
function arm(gitDir: string): void {
  git(dir, `--git-dir=${gitDir}`, 'config', 'core.fsmonitor', `touch ${marks}/fsmonitor; false`);
  git(dir, `--git-dir=${gitDir}`, 'config', 'alias.st', `!touch ${marks}/alias`);
}

/** A later step's plain git. */
function laterStep(cwd: string): void {
  for (const args of [['status'], ['st'], ['log', '-1']])
    spawnSync('git', args, { cwd, env: { ...env, GIT_PAGER: 'cat' }, stdio: 'ignore' });
}

describe('repairGitDirs', () => {
  it('replaces a .git moved away behind a link by a clean one, and disarms the moved one, never trusting it', async () => {
    const { options } = await beforeTools();
    const config = readFileSync(join(dir, '.git', 'config'), 'utf8');
    const shallow = readFileSync(join(dir, '.git', 'shallow'), 'utf8');
    const head = git(dir, 'rev-parse', 'HEAD');
    const hooks = readdirSync(join(dir, '.git', 'hooks')).sort();
    arm(join(dir, '.git'));
    writeFileSync(join(dir, 'f1.txt'), 'work\n');
    mkdirSync(join(dir, 'node_modules'));
    renameSync(join(dir, '.git'), join(dir, 'node_modules', '.g'));
    symlinkSync('node_modules/.g', join(dir, '.git'));

    const report = await repairGitDirs(options);

    expect(report.remade).toBe(true);
    expect(report.configs).toEqual(['node_modules/.g/config']);
    expect(lstatSync(join(dir, '.git')).isDirectory()).toBe(true);
    expect(readFileSync(join(dir, '.git', 'config'), 'utf8')).toBe(config);
    expect(readFileSync(join(dir, '.git', 'shallow'), 'utf8')).toBe(shallow);
    expect(git(dir, 'rev-parse', 'HEAD')).toBe(head);
    expect(git(dir, 'symbolic-ref', 'HEAD')).toBe('refs/heads/main');
    // The index is HEAD's: the work tree's change shows as one, nothing else does.
    expect(git(dir, 'status', '--porcelain', '--untracked-files=no')).toBe('M f1.txt');
    expect(readdirSync(join(dir, '.git', 'hooks')).sort()).toEqual(hooks);
    laterStep(dir);
    laterStep(join(dir, 'node_modules', '.g'));
    expect(readdirSync(marks)).toEqual([]);
    expect(repairSentences(report)).toContain(
      "The workspace's .git was not a directory: a clean one was made in its place.",
    );
  });

  it('replaces a .git file pointing out of the workspace, and leaves what it named alone', async () => {
    const { options } = await beforeTools();
    const originConfig = readFileSync(join(origin, 'config'), 'utf8');
    rmSync(join(dir, '.git'), { recursive: true });
    writeFileSync(join(dir, '.git'), `gitdir: ${origin}\n`);

    const report = await repairGitDirs(options);

    expect(report.remade).toBe(true);
    expect(lstatSync(join(dir, '.git')).isDirectory()).toBe(true);
    expect(readFileSync(join(origin, 'config'), 'utf8')).toBe(originConfig);
    expect(git(dir, 'log', '--format=%s', '-1')).toBe('c2');
  });

  it('makes a .git where the model left none', async () => {
    const { options } = await beforeTools();
    rmSync(join(dir, '.git'), { recursive: true });
    expect((await repairGitDirs(options)).remade).toBe(true);
    expect(git(dir, 'status', '--porcelain')).toBe('');
  });

  it('puts the configuration back past what the model made unremovable, as the workspace’s owner', async () => {
    const { options } = await beforeTools();
    const config = readFileSync(join(dir, '.git', 'config'), 'utf8');
    arm(join(dir, '.git'));
    mkdirSync(join(dir, '.git', 'hooks', 'zz.d', 'x'), { recursive: true });
    chmodSync(join(dir, '.git', 'hooks', 'zz.d'), 0o000);

    const report = await asNotRoot([dir, options.ownGitDir], () => repairGitDirs(options));

    expect(report).toMatchObject({ remade: false, resisted: { left: [], unread: [] } });
    expect(readFileSync(join(dir, '.git', 'config'), 'utf8')).toBe(config);
    expect(existsSync(join(dir, '.git', 'hooks', 'zz.d'))).toBe(false);
    laterStep(dir);
    expect(readdirSync(marks)).toEqual([]);
  });

  it('without our own git directory, cannot make a clean .git: says why, and disarms what is there', async () => {
    const { own, options } = await beforeTools();
    arm(join(dir, '.git'));
    renameSync(join(dir, '.git'), join(dir, '.gitstore'));
    symlinkSync('.gitstore', join(dir, '.git'));
    await own.remove();

    const report = await repairGitDirs(options);

    expect(report.remade).toBe(false);
    expect(report.notRemade).toBeDefined();
    expect(report.configs).toEqual(['.gitstore/config']);
    laterStep(dir);
    expect(readdirSync(marks)).toEqual([]);
  });
});

describe('repairAfterKill', () => {
  it('reads what was saved from our own git directory, as the post step of a killed run does', async () => {
    const { own } = await beforeTools();
    const config = readFileSync(join(dir, '.git', 'config'), 'utf8');
    arm(join(dir, '.git'));
    renameSync(join(dir, '.git'), join(dir, '.gitstore'));
    symlinkSync('.gitstore', join(dir, '.git'));

    const report = await repairAfterKill({ workspace: dir, ownGitDir: own.path });

    expect(report.remade).toBe(true);
    expect(readFileSync(join(dir, '.git', 'config'), 'utf8')).toBe(config);
    laterStep(dir);
    laterStep(join(dir, '.gitstore'));
    expect(readdirSync(marks)).toEqual([]);
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
    git(dir, 'init', '-q', 'nested');
    arm(join(dir, 'nested', '.git'));
    const [one, two] = await Promise.all([guard.repair(), guard.repair()]);
    expect(two).toBe(one);
    expect(await guard.repair()).toBe(one);
    expect(one.configs).toHaveLength(1);
    expect(told).toEqual(['armed', `repaired: ${repairSentences(one).join(' ')}`]);
    expect(told[1]).toMatch(/Cut nested git configuration down to inert settings: .*nested/);
  });

  it('finishes by putting right what nobody did, then removes our own git directory; a second finish does nothing', async () => {
    const { guard, own, told } = await armed();
    arm(join(dir, '.git'));
    await guard.finish();
    await guard.finish();
    expect(told).toEqual(['armed', 'repaired: ']);
    expect(existsSync(own.path)).toBe(false);
    laterStep(dir);
    expect(readdirSync(marks)).toEqual([]);
  });

  it('leaves our own git directory for the post step when putting right failed, and says why', async () => {
    // Two runs' guards of one workspace that then vanishes: realpath fails, nothing can be repaired.
    const asked = await armed();
    const unasked = await armed();
    rmSync(dir, { recursive: true, force: true });
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
