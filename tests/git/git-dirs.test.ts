import { execFileSync, spawnSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  lstatSync,
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
import { GitRepo } from '../../src/git/repo.js';
import { asNotRoot, commitFiles, git, GIT_ENV, useGitScratch, WHO } from '../support/git-fixture.js';

const env = GIT_ENV;
const who = WHO;

const scratch = useGitScratch('todo-agent-git-dirs-', () => {
  mkdirSync(scratch.dir);
  git(scratch.dir, 'init', '--quiet', '--initial-branch=main');
  commitFiles(scratch.dir, { 'README.md': '# hello\n' }, 'init');
});

/** A nested repository whose configuration runs something on every plain git command it can. */
function plantNested(path: string): void {
  mkdirSync(path, { recursive: true });
  git(path, 'init', '--quiet');
  writeFileSync(join(path, 'x.txt'), 'x\n');
  git(path, 'add', '-A');
  git(path, ...who, 'commit', '-qm', 'x');
  writeFileSync(join(path, 'x.txt'), 'changed\n');
  const mark = (name: string) => `touch ${scratch.marks}/${name}`;
  writeFileSync(join(path, '.gitattributes'), '* filter=evil diff=evil\n');
  const included = join(scratch.root, 'included.config');
  writeFileSync(included, `[core]\n\tpager = ${mark('include-pager')}; cat\n`);
  for (const [key, value] of [
    ['core.fsmonitor', `${mark('fsmonitor')}; false`],
    ['core.hooksPath', scratch.marks],
    ['core.pager', `${mark('pager')}; cat`],
    ['core.editor', mark('editor')],
    ['core.sshCommand', mark('ssh')],
    ['pager.log', `${mark('pager-log')}; cat`],
    ['alias.st', `!${mark('alias')}`],
    ['filter.evil.clean', `${mark('filter')}; cat`],
    ['filter.evil.smudge', `${mark('filter')}; cat`],
    ['diff.evil.textconv', `sh -c '${mark('textconv')}; cat "$1"' -`],
    ['credential.helper', `!${mark('credential')}`],
    ['log.showSignature', 'true'],
    ['gpg.program', mark('gpg')],
    ['include.path', included],
    ['remote.origin.uploadpack', mark('uploadpack')],
  ]) {
    git(path, 'config', key!, value!);
  }
  const hook = join(path, '.git', 'hooks', 'post-checkout');
  writeFileSync(hook, `#!/bin/sh\n${mark('hook')}\n`);
  chmodSync(hook, 0o755);
}

/** What a later workflow step runs: plain git, with whatever configuration the machine has. */
function laterStep(cwd: string): void {
  for (const args of [['status'], ['log', '-p', '-1'], ['diff'], ['st'], ['show', 'HEAD']]) {
    spawnSync('git', args, { cwd, env: { ...process.env, GIT_PAGER: '', PAGER: '' }, stdio: 'ignore' });
  }
}

/** Every link under `dir` (not followed) whose target is missing or outside `within`. */
function linksOut(dir: string, within: string): string[] {
  const found: string[] = [];
  for (const name of readdirSync(dir)) {
    const full = join(dir, name);
    const stat = lstatSync(full);
    if (stat.isSymbolicLink()) {
      const target = execFileSync('readlink', ['-f', full]).toString().trim();
      if (!target.startsWith(`${within}/`) || !existsSync(target)) found.push(full);
    } else if (stat.isDirectory()) found.push(...linksOut(full, within));
  }
  return found;
}

describe('disarmGitDirs', () => {
  it('leaves a nested repository that a later plain git status, log, diff or alias runs nothing of', async () => {
    const nested = join(scratch.dir, 'vendor', 'lib');
    plantNested(nested);
    // The check that the marks are reached at all: before, the plain commands run the plants.
    laterStep(nested);
    expect(readdirSync(scratch.marks).length).toBeGreaterThan(3);
    for (const name of readdirSync(scratch.marks)) rmSync(join(scratch.marks, name));

    const disarmed = await disarmGitDirs(scratch.dir, new GitRepo(scratch.dir, { env }), [
      join(scratch.dir, '.git'),
    ]);

    expect(disarmed.configs).toEqual(['vendor/lib/.git/config']);
    laterStep(nested);
    laterStep(scratch.dir);
    expect(readdirSync(scratch.marks)).toEqual([]);
    // What makes it a repository stays: its commit, its remote-less state, its changed file.
    expect(git(nested, 'log', '--format=%s')).toBe('x');
    expect(git(nested, 'status', '--porcelain')).toContain('x.txt');
    expect(existsSync(join(nested, '.git', 'hooks'))).toBe(false);
  });

  it('removes every link in a .git that leads out, and .git files, commondir and alternates that do', async () => {
    const secret = join(scratch.root, 'npmrc');
    writeFileSync(secret, '//npm.registry.example/:_authToken=npm_packedRefsLeak\n');
    const nested = join(scratch.dir, 'nested');
    plantNested(nested);
    rmSync(join(nested, '.git', 'packed-refs'), { force: true });
    symlinkSync(secret, join(nested, '.git', 'packed-refs'));
    symlinkSync(scratch.root, join(scratch.dir, '.git', 'logs', 'outside-dir'));
    symlinkSync(join(scratch.dir, 'README.md'), join(scratch.dir, '.git', 'inside'));
    symlinkSync(join(scratch.root, 'missing'), join(scratch.dir, '.git', 'dangling'));
    // A .git file naming a repository outside, and a worktree-like git dir whose commondir leads out.
    mkdirSync(join(scratch.dir, 'pointer'));
    writeFileSync(join(scratch.dir, 'pointer', '.git'), `gitdir: ${scratch.root}\n`);
    mkdirSync(join(scratch.dir, 'wt'));
    const linked = join(scratch.dir, '.git', 'worktrees', 'wt');
    mkdirSync(linked, { recursive: true });
    writeFileSync(join(linked, 'HEAD'), 'ref: refs/heads/main\n');
    writeFileSync(join(linked, 'commondir'), `${scratch.root}\n`);
    writeFileSync(join(scratch.dir, '.git', 'objects', 'info', 'alternates'), '/usr/share/objects\n');
    // A work-tree link out is the work's content: it stays.
    symlinkSync('/etc/passwd', join(scratch.dir, 'passwd-link'));

    const disarmed = await disarmGitDirs(scratch.dir, new GitRepo(scratch.dir, { env }), [
      join(scratch.dir, '.git'),
    ]);

    expect(disarmed.links.sort()).toEqual(
      [
        '.git/dangling',
        '.git/logs/outside-dir',
        '.git/objects/info/alternates',
        '.git/worktrees/wt/commondir',
        'nested/.git/packed-refs',
        'pointer/.git',
      ].sort(),
    );
    expect(linksOut(join(scratch.dir, '.git'), scratch.dir)).toEqual([]);
    expect(linksOut(join(nested, '.git'), scratch.dir)).toEqual([]);
    expect(existsSync(join(scratch.dir, '.git', 'inside'))).toBe(true);
    expect(lstatSync(join(scratch.dir, 'passwd-link')).isSymbolicLink()).toBe(true);
    expect(readFileSync(secret, 'utf8')).toContain('npm_packedRefsLeak');
  });

  it('treats a directory that git would take for a bare repository as one', async () => {
    const bare = join(scratch.dir, 'fake');
    git(scratch.root, 'init', '--quiet', '--bare', bare);
    git(bare, 'config', 'core.pager', `touch ${scratch.marks}/bare-pager; cat`);
    git(bare, 'config', 'alias.st', `!touch ${scratch.marks}/bare-alias`);
    const disarmed = await disarmGitDirs(scratch.dir, new GitRepo(scratch.dir, { env }), [
      join(scratch.dir, '.git'),
    ]);
    expect(disarmed.configs).toEqual(['fake/config']);
    laterStep(bare);
    expect(readdirSync(scratch.marks)).toEqual([]);
    expect(git(bare, 'rev-parse', '--is-bare-repository')).toBe('true');
  });

  it('keeps the configuration and hooks of the git dirs it is told to trust', async () => {
    git(scratch.dir, 'config', 'core.sshCommand', 'ssh -i key');
    const before = readFileSync(join(scratch.dir, '.git', 'config'), 'utf8');
    const disarmed = await disarmGitDirs(scratch.dir, new GitRepo(scratch.dir, { env }), [
      join(scratch.dir, '.git'),
    ]);
    expect(disarmed).toEqual({ links: [], configs: [], resisted: { left: [], unread: [] } });
    expect(readFileSync(join(scratch.dir, '.git', 'config'), 'utf8')).toBe(before);
  });

  it('finds every nested repository in a wide, deep tree, and one inside a bare repository’s hooks is no trouble', async () => {
    // A node_modules-like tree: 300 directories, two repositories deep inside it.
    for (let a = 0; a < 20; a++)
      for (let b = 0; b < 15; b++)
        mkdirSync(join(scratch.dir, 'node_modules', `p${a}`, `d${b}`), { recursive: true });
    plantNested(join(scratch.dir, 'node_modules', 'p3', 'd7', 'deep'));
    plantNested(join(scratch.dir, 'node_modules', 'p19', 'd14', 'deeper'));
    // A bare repository whose hooks hold a `.git`: the hooks go when the bare one is disarmed, before it.
    const bare = join(scratch.dir, 'fake');
    git(scratch.root, 'init', '--quiet', '--bare', bare);
    git(bare, 'config', 'core.pager', `touch ${scratch.marks}/bare-pager; cat`);
    mkdirSync(join(bare, 'hooks', 'sub'), { recursive: true });
    writeFileSync(join(bare, 'hooks', 'sub', '.git'), `gitdir: ${scratch.root}\n`);

    const disarmed = await disarmGitDirs(scratch.dir, new GitRepo(scratch.dir, { env }), [
      join(scratch.dir, '.git'),
    ]);

    expect(disarmed.configs).toEqual([
      'fake/config',
      'node_modules/p19/d14/deeper/.git/config',
      'node_modules/p3/d7/deep/.git/config',
    ]);
    expect(existsSync(join(bare, 'hooks'))).toBe(false);
    for (const nested of ['p3/d7/deep', 'p19/d14/deeper'])
      laterStep(join(scratch.dir, 'node_modules', nested));
    expect(readdirSync(scratch.marks)).toEqual([]);
  });

  it('never trusts a .git link for where it leads: a moved .git, in the work tree or in node_modules, is disarmed', async () => {
    for (const [store, link] of [
      ['.gitstore', '.gitstore'],
      ['node_modules/.g', 'node_modules/.g'],
    ] as const) {
      git(scratch.dir, 'config', 'core.fsmonitor', `touch ${scratch.marks}/fsmonitor; false`);
      git(scratch.dir, 'config', 'alias.st', `!touch ${scratch.marks}/alias`);
      mkdirSync(join(scratch.dir, 'node_modules'), { recursive: true });
      execFileSync('mv', [join(scratch.dir, '.git'), join(scratch.dir, store)]);
      symlinkSync(link, join(scratch.dir, '.git'));

      const disarmed = await disarmGitDirs(scratch.dir, new GitRepo(scratch.dir, { env }), [
        join(scratch.dir, '.git'),
      ]);

      expect(disarmed.configs).toEqual([`${store}/config`]);
      laterStep(scratch.dir);
      expect(readdirSync(scratch.marks)).toEqual([]);
      // Put back for the next round: the link goes, the directory comes home.
      rmSync(join(scratch.dir, '.git'));
      execFileSync('mv', [join(scratch.dir, store), join(scratch.dir, '.git')]);
    }
  });

  it("disarms a submodule whose gitfile the model replaced by a repository of its own, which the top's status enters", async () => {
    const lib = join(scratch.root, 'lib');
    mkdirSync(lib);
    git(lib, 'init', '--quiet', '--initial-branch=main');
    commitFiles(lib, { 'lib.txt': 'lib\n' }, 'lib');
    git(scratch.dir, '-c', 'protocol.file.allow=always', 'submodule', '--quiet', 'add', lib, 'lib');
    git(scratch.dir, ...who, 'commit', '-qm', 'submodule');
    // The gitfile goes; a repository of the model's takes its place, its fsmonitor armed.
    rmSync(join(scratch.dir, 'lib', '.git'));
    git(join(scratch.dir, 'lib'), 'init', '--quiet');
    git(
      join(scratch.dir, 'lib'),
      'config',
      'core.fsmonitor',
      `touch ${scratch.marks}/submodule-fsmonitor; false`,
    );
    // The top's plain status runs it (it asks each checked-out submodule for its own status)…
    laterStep(scratch.dir);
    expect(readdirSync(scratch.marks)).toEqual(['submodule-fsmonitor']);
    rmSync(join(scratch.marks, 'submodule-fsmonitor'));

    const disarmed = await disarmGitDirs(scratch.dir, new GitRepo(scratch.dir, { env }), [
      join(scratch.dir, '.git'),
    ]);

    // …and no longer once disarmed (the submodule's own git directory under .git/modules holds nothing to cut).
    expect(disarmed.configs).toEqual(['lib/.git/config']);
    laterStep(scratch.dir);
    spawnSync(
      'git',
      ['submodule', 'foreach', '--recursive', 'git config --local --name-only --get-regexp core'],
      {
        cwd: scratch.dir,
        stdio: 'ignore',
      },
    );
    expect(readdirSync(scratch.marks)).toEqual([]);
  });

  it('walks into directories the model made unreadable, and removes a .git file it made unreadable', async () => {
    plantNested(join(scratch.dir, 'a', 'b', 'hidden'));
    mkdirSync(join(scratch.dir, 'c'));
    writeFileSync(join(scratch.dir, 'c', '.git'), `gitdir: ${scratch.root}\n`);
    chmodSync(join(scratch.dir, 'c', '.git'), 0o000);
    chmodSync(join(scratch.dir, 'a', 'b'), 0o000);
    chmodSync(join(scratch.dir, 'a'), 0o000);
    chmodSync(scratch.root, 0o755);

    const disarmed = await asNotRoot([scratch.dir], () =>
      disarmGitDirs(scratch.dir, new GitRepo(scratch.dir, { env }), [join(scratch.dir, '.git')]),
    );

    expect(disarmed.configs).toEqual(['a/b/hidden/.git/config']);
    expect(disarmed.links).toEqual(['c/.git']);
    expect(disarmed.resisted).toEqual({ left: [], unread: [] });
    laterStep(join(scratch.dir, 'a', 'b', 'hidden'));
    expect(readdirSync(scratch.marks)).toEqual([]);
  });

  it.runIf(process.getuid?.() === 0)(
    'renames aside what cannot be removed (an immutable hook), so that git no longer finds it, and says so',
    async () => {
      const nested = join(scratch.dir, 'vendor');
      plantNested(nested);
      const hook = join(nested, '.git', 'hooks', 'post-checkout');
      execFileSync('chattr', ['+i', hook]);
      try {
        const disarmed = await disarmGitDirs(scratch.dir, new GitRepo(scratch.dir, { env }), [
          join(scratch.dir, '.git'),
        ]);
        expect(disarmed.resisted.left).toEqual([
          {
            path: 'vendor/.git/hooks',
            asideAs: expect.stringMatching(/^vendor\/\.git\/\.todo-agent-unremovable-/),
          },
        ]);
        expect(existsSync(join(nested, '.git', 'hooks'))).toBe(false);
        git(nested, 'checkout', '-q', '-b', 'other');
        expect(readdirSync(scratch.marks)).toEqual([]);
      } finally {
        execFileSync('chattr', ['-R', '-i', join(nested, '.git')]);
      }
    },
  );
});
