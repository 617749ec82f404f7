// What the git unit tests share: git without the machine's configuration, a commit identity, and a scratch
// folder with a repository (and its origin) made the way each test needs.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach } from 'vitest';

/** The tests' own git: no system or global configuration, so only the repository's counts. */
export const GIT_ENV: NodeJS.ProcessEnv = {
  ...process.env,
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_CONFIG_NOSYSTEM: '1',
};

/** `-c user.*` for the tests' own commits (the action gets no identity from the machine). */
export const WHO = ['-c', 'user.name=T', '-c', 'user.email=t@example.com'];

/** Runs git in `cwd` and returns its trimmed stdout; throws when it fails. */
export function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, {
    cwd,
    env: GIT_ENV,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  }).trim();
}

/**
 * A fresh folder for one test: `root`, with `marks` made in it (where a planted command leaves a file to say
 * it ran), and the paths of the work tree (`work`) and a bare origin (`origin.git`), not made yet.
 */
export interface GitScratch {
  root: string;
  dir: string;
  origin: string;
  marks: string;
}

export function gitScratch(prefix: string): GitScratch {
  const root = mkdtempSync(join(tmpdir(), prefix));
  const scratch = {
    root,
    dir: join(root, 'work'),
    origin: join(root, 'origin.git'),
    marks: join(root, 'marks'),
  };
  mkdirSync(scratch.marks);
  return scratch;
}

/**
 * Registers, in the calling test file, a fresh scratch before each test (then `setup` on it) and its removal
 * after. Returns the current test's scratch: one object whose paths are set anew before each test.
 */
export function useGitScratch(prefix: string, setup: (scratch: GitScratch) => void): GitScratch {
  const current: GitScratch = { root: '', dir: '', origin: '', marks: '' };
  beforeEach(() => {
    Object.assign(current, gitScratch(prefix));
    setup(current);
  });
  afterEach(() => {
    if (current.root) rmSync(current.root, { recursive: true, force: true });
    current.root = '';
  });
  return current;
}

/** Makes the scratch's empty bare origin, on `main`, and clones it into `into` (on `main` too). */
export function cloneNewOrigin(scratch: GitScratch, into: string): void {
  git(scratch.root, 'init', '--quiet', '--bare', '--initial-branch=main', scratch.origin);
  git(scratch.root, 'clone', '--quiet', scratch.origin, into);
  git(into, 'symbolic-ref', 'HEAD', 'refs/heads/main');
}

/**
 * What actions/checkout gives with its default fetch-depth: 1, in the scratch's `dir`: a clone of `depth` 1
 * of the scratch's origin, whose `main` a seed clone (in `root`/seed) filled with `commits` commits, one file
 * each (`f1.txt` holding `1`, …).
 */
export function shallowCloneOfSeeded(scratch: GitScratch, commits: number): void {
  const seed = join(scratch.root, 'seed');
  cloneNewOrigin(scratch, seed);
  for (let n = 1; n <= commits; n++) commitFiles(seed, { [`f${n}.txt`]: `${n}\n` }, `c${n}`);
  git(seed, 'push', '-q', 'origin', 'main');
  git(scratch.root, 'clone', '--quiet', '--depth', '1', `file://${scratch.origin}`, scratch.dir);
}

/** Writes `files` (path to content) in the work tree `dir` and commits everything with the tests' identity. */
export function commitFiles(dir: string, files: Record<string, string>, message: string): void {
  for (const [path, content] of Object.entries(files)) writeFileSync(join(dir, path), content);
  git(dir, 'add', '-A');
  git(dir, ...WHO, 'commit', '-qm', message);
}

/** The uid and gid the tests act as when they run as root and need a user without root's powers. */
export const NOT_ROOT = 4242;

/**
 * Runs `act` as a user that owns `owned` (each chowned to it, recursively) and is not root, since modes
 * stop no root: as root, with the effective ids of NOT_ROOT meanwhile (the folders above must let it in);
 * as anyone else, as that user. Files and processes made meanwhile are that user's.
 */
export async function asNotRoot<T>(owned: readonly string[], act: () => Promise<T>): Promise<T> {
  if (process.getuid?.() !== 0) return await act();
  for (const path of owned) execFileSync('chown', ['-R', `${NOT_ROOT}:${NOT_ROOT}`, path]);
  process.setegid!(NOT_ROOT);
  process.seteuid!(NOT_ROOT);
  try {
    return await act();
  } finally {
    process.seteuid!(0);
    process.setegid!(0);
  }
}

/**
 * Registers, in the calling test file, a fresh scratch before each test whose bare origin's `main` holds
 * `files` in one commit ('Start'), cloned into the scratch's `dir`; `before` runs in `dir` before the commit
 * (folders to make). Returns the current test's scratch.
 */
export function useClonedOrigin(
  prefix: string,
  files: Record<string, string>,
  before: (dir: string) => void = () => undefined,
): () => GitScratch {
  let scratch: GitScratch | undefined;
  useGitScratch(prefix, (made) => {
    scratch = made;
    cloneNewOrigin(made, made.dir);
    before(made.dir);
    commitFiles(made.dir, files, 'Start');
    git(made.dir, 'push', '--quiet', 'origin', 'main');
  });
  return () => scratch!;
}

/** Where the origin's branch `name` stands, or undefined when it has none. */
export function originBranch(scratch: GitScratch, name: string): string | undefined {
  try {
    return git(scratch.origin, 'rev-parse', '--verify', '--quiet', `refs/heads/${name}`);
  } catch {
    return undefined;
  }
}
