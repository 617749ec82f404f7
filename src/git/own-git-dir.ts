// The action's own git directory: made before the sandbox starts (so that the tools never see it, as they
// never see the runner's files), filled from the checkout's `.git` before the first tool call, while that
// `.git` is still as actions/checkout left it, and from then on the only repository our git works in. The
// workspace is its work tree and nothing more: no configuration, hook, `shallow`, log or link of the
// workspace's `.git` is read or written by the commit, the push or any history read after the tools ran.
import { copyFile, lstat, mkdir, mkdtemp, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { GitError, gitEnv, runGit } from './git-process.js';
import { GitRepo, type GitRepoOptions } from './repo.js';
import type { SavedConfig } from './config-guard.js';

/** A ref of our own that holds the checkout's HEAD while it is fetched (a detached merge commit has no ref). */
const START_REF = 'refs/todo-agent/start';

export interface OwnGitDir {
  /** Where it is: hide it from the tools. */
  readonly path: string;
  /**
   * Fills it from `checkout` (the workspace's repository, before any tool ran): every ref and the objects
   * they need, `shallow`, HEAD (the same branch, or detached at the same commit), the index, origin's URL
   * and `info/exclude`. Returns our git for the workspace, bound to this directory.
   */
  adopt(checkout: GitRepo, options?: GitRepoOptions): Promise<GitRepo>;
  /**
   * Hands our commit back to the workspace's repository for the workflow's later steps: its objects fetched
   * into the workspace's `.git` and its branch (or detached HEAD) and index moved to it, so that the work
   * tree is clean there again. Call it only once every `.git` of the workspace was disarmed (git-dirs.ts):
   * git then writes nothing through a link. Does nothing when no commit was made.
   */
  returnCommitToWorkspace(repo: GitRepo, startSha: string): Promise<void>;
  /** Deletes it (at the end of the run). */
  remove(): Promise<void>;
}

/**
 * An empty directory, private to this user, under RUNNER_TEMP (hidden from the tools with the runner's
 * files; the runner empties it after the job) or else the system's temp directory.
 */
export async function reserveGitDir(env: NodeJS.ProcessEnv = process.env): Promise<OwnGitDir> {
  const runnerTemp = env.RUNNER_TEMP;
  const usable =
    runnerTemp &&
    path.isAbsolute(runnerTemp) &&
    (await stat(runnerTemp).then(
      (s) => s.isDirectory(),
      () => false,
    ));
  const prefix = 'todo-agent-git-';
  // A RUNNER_TEMP this user may not write to (a test's, a misconfigured runner's): the system's instead.
  const dir = usable
    ? await mkdtemp(path.join(runnerTemp, prefix)).catch(
        async () => await mkdtemp(path.join(tmpdir(), prefix)),
      )
    : await mkdtemp(path.join(tmpdir(), prefix));
  // The environment adopt was given (secret-free), for returnCommitToWorkspace's git too.
  let gitBase: NodeJS.ProcessEnv = process.env;
  return {
    path: dir,
    adopt: async (checkout, options = {}) => {
      gitBase = options.env ?? process.env;
      return await adopt(dir, checkout, options);
    },
    returnCommitToWorkspace: async (repo, startSha) =>
      await returnCommitToWorkspace(dir, repo, startSha, gitBase),
    remove: async () => await rm(dir, { recursive: true, force: true }),
  };
}

async function adopt(dir: string, checkout: GitRepo, options: GitRepoOptions): Promise<GitRepo> {
  const source = path.join(checkout.dir, '.git');
  const sourceStat = await lstat(source).catch(() => undefined);
  if (!sourceStat?.isDirectory()) {
    throw new Error(`${source} is not a directory, so there is no checkout to start from`);
  }
  const base = options.env ?? process.env;
  const plain = gitEnv(base);
  const bound = gitEnv(base, { gitDir: dir, workTree: checkout.dir });
  const git = async (env: NodeJS.ProcessEnv, args: string[], cwd = checkout.dir): Promise<string> => {
    const result = await runGit(cwd, env, args);
    if (result.code !== 0) throw new GitError(args, result.stderr || result.stdout, result.code);
    return result.stdout.trim();
  };

  // Read from the checkout: its object format, HEAD (branch or commit) and origin's URL.
  const format = (await git(plain, ['rev-parse', '--show-object-format'])) || 'sha1';
  const head = await checkout.resolve('HEAD');
  const branch = (await runGit(checkout.dir, plain, ['symbolic-ref', '--quiet', 'HEAD'])).stdout.trim();
  const originUrl = (
    await checkout.configFile(path.join(source, 'config'), ['--get', 'remote.origin.url'])
  ).trim();

  // No template: not even the sample hooks. Not bare, with the work tree given on every command.
  await git(plain, ['init', '--quiet', '--bare', '--template=', `--object-format=${format}`, dir], dir);
  await git(bound, ['config', 'core.bare', 'false']);
  if (originUrl) {
    await git(bound, ['config', 'remote.origin.url', originUrl]);
    await git(bound, ['config', 'remote.origin.fetch', '+refs/heads/*:refs/remotes/origin/*']);
  }
  if (head) {
    // The checkout's `.git` is read through git's own transport (upload-pack), never copied file by file.
    await git(bound, [
      'fetch',
      '--quiet',
      '--no-tags',
      '--update-shallow',
      '--no-write-fetch-head',
      '--update-head-ok',
      source,
      '+refs/*:refs/*',
      `+HEAD:${START_REF}`,
    ]);
    await git(bound, ['update-ref', '-d', START_REF]);
  }
  if (branch.startsWith('refs/heads/')) await git(bound, ['symbolic-ref', 'HEAD', branch]);
  else if (head) await git(bound, ['update-ref', '--no-deref', 'HEAD', head]);
  await copyRegularFiles(source, dir);
  if (head && !(await exists(path.join(dir, 'index')))) await git(bound, ['read-tree', 'HEAD']);
  // The copied index's file times are the checkout's: refresh them (exit 1 just means changes).
  await runGit(checkout.dir, bound, ['update-index', '-q', '--refresh']);
  return new GitRepo(checkout.dir, { ...options, gitDir: dir });
}

/** Where a new `.git` is built before it is renamed into place (a leftover of a killed run is replaced). */
const NEW_GIT_DIR = '.git.todo-agent-new';

/**
 * A clean `.git` for the workspace, made from our own git directory `ownDir` when the model left none (a
 * link, a file or nothing in its place, which `remove` takes away: never followed, never trusted). Ours has
 * every ref and object the checkout had, and its HEAD; `saved` the checkout's configuration, hooks and
 * `shallow`. Built beside the work tree and renamed into place, its index read from HEAD (the work tree's
 * changes show as changes).
 */
export async function remakeGitDir(
  ownDir: string,
  workspace: string,
  saved: Pick<SavedConfig, 'config' | 'shallow' | 'writeHooks'>,
  remove: (target: string) => Promise<boolean>,
  base: NodeJS.ProcessEnv = process.env,
): Promise<void> {
  const building = path.join(workspace, NEW_GIT_DIR);
  await rm(building, { recursive: true, force: true });
  const own = gitEnv(base, { gitDir: ownDir, workTree: workspace });
  const bound = gitEnv(base, { gitDir: building, workTree: workspace });
  const git = async (env: NodeJS.ProcessEnv, args: string[]): Promise<string> => {
    const result = await runGit(workspace, env, args);
    if (result.code !== 0) throw new GitError(args, result.stderr || result.stdout, result.code);
    return result.stdout.trim();
  };
  const format = (await git(own, ['rev-parse', '--show-object-format'])) || 'sha1';
  await git(gitEnv(base), [
    'init',
    '--quiet',
    '--bare',
    '--template=',
    `--object-format=${format}`,
    building,
  ]);
  const branch = (await runGit(workspace, own, ['symbolic-ref', '--quiet', 'HEAD'])).stdout.trim();
  const head = (await runGit(workspace, own, ['rev-parse', '--verify', '--quiet', 'HEAD'])).stdout.trim();
  // HEAD too, under a ref of our own: a detached HEAD (a pull request's merge commit) is held by no ref.
  await git(bound, [
    ...['fetch', '--quiet', '--no-tags', '--update-shallow', '--no-write-fetch-head', '--update-head-ok'],
    ...[ownDir, '+refs/*:refs/*', ...(head ? [`+HEAD:${START_REF}`] : [])],
  ]);
  if (branch) await git(bound, ['symbolic-ref', 'HEAD', branch]);
  else if (head) await git(bound, ['update-ref', '--no-deref', 'HEAD', head]);
  if (head) await git(bound, ['update-ref', '-d', START_REF]);
  if (head) await git(bound, ['read-tree', 'HEAD']);
  await writeFile(path.join(building, 'config'), saved.config ?? '[core]\n\tbare = false\n');
  if (saved.shallow !== undefined) await writeFile(path.join(building, 'shallow'), saved.shallow);
  await saved.writeHooks(path.join(building, 'hooks'));
  await runGit(workspace, bound, ['update-index', '-q', '--refresh']);
  const target = path.join(workspace, '.git');
  if (!(await remove(target)))
    throw new Error(`${target} could not be removed, so no clean one is in its place`);
  await rename(building, target);
}

async function returnCommitToWorkspace(
  dir: string,
  repo: GitRepo,
  startSha: string,
  base: NodeJS.ProcessEnv,
): Promise<void> {
  const sha = await repo.head();
  if (sha === startSha) return;
  const workspace = repo.dir;
  const env = gitEnv(base, { gitDir: path.join(workspace, '.git'), workTree: workspace });
  for (const args of [
    ['fetch', '--quiet', '--no-tags', '--no-write-fetch-head', dir, sha],
    ['reset', '--quiet', '--mixed', sha],
  ]) {
    const result = await runGit(workspace, env, args);
    // `reset` exits 1 when the index does not match the work tree: what it reports is not an error here.
    if (result.code !== 0 && !(args[0] === 'reset' && result.code === 1)) {
      throw new GitError(args, result.stderr || result.stdout, result.code);
    }
  }
}

/**
 * The index as the checkout has it (staged changes and sparse-checkout bits kept), its shared index when
 * split, and `info/exclude`: regular files only, never through a link.
 */
async function copyRegularFiles(source: string, target: string): Promise<void> {
  const names = (await readdir(source)).filter((name) => name === 'index' || name.startsWith('sharedindex.'));
  for (const name of [...names, path.join('info', 'exclude')]) {
    const from = path.join(source, name);
    if (!(await lstat(from).catch(() => undefined))?.isFile()) continue;
    await mkdir(path.dirname(path.join(target, name)), { recursive: true });
    await copyFile(from, path.join(target, name));
  }
}

async function exists(file: string): Promise<boolean> {
  return await lstat(file).then(
    () => true,
    () => false,
  );
}
