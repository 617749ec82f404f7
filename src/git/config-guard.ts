// The workspace's git configuration as something the model must not steer: the credentials
// actions/checkout persisted are removed before the first tool call, and the configuration, hooks and
// `shallow` as they were then are put back after the last one, for the workflow's later steps (our own git
// works in a directory of its own and reads none of them). Nothing is written back through a link.
import { lstat, mkdir, readFile, readdir, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { disarmGitDirs, type Disarmed } from './git-dirs.js';
import type { GitRepo } from './repo.js';

/** Files in .git that change which configuration or repository git reads; absent ones stay absent. */
const CONFIG_FILES = ['config', 'config.worktree', 'commondir'] as const;
/** Put back only when the model replaced it by something else than a file (a link to a secret, say). */
const SHALLOW = 'shallow';

/** One configuration entry: `name` as git prints it (lower-cased section and key) and its value. */
interface Entry {
  name: string;
  value: string;
}

async function entries(git: GitRepo, file: string, pattern: string): Promise<Entry[]> {
  const output = await git.configFile(file, ['--null', '--get-regexp', pattern]);
  return output
    .split('\0')
    .filter((record) => record !== '')
    .map((record) => {
      const newline = record.indexOf('\n');
      return newline === -1
        ? { name: record, value: '' }
        : { name: record.slice(0, newline), value: record.slice(newline + 1) };
    });
}

/** `.git/config` and every submodule's config under `.git/modules`. */
async function configFiles(gitDir: string): Promise<string[]> {
  const found = [path.join(gitDir, 'config')];
  const walk = async (dir: string, depth: number): Promise<void> => {
    if (depth > 6) return;
    let names: string[];
    try {
      names = await readdir(dir);
    } catch {
      return;
    }
    for (const name of names) {
      const full = path.join(dir, name);
      if (!(await lstat(full)).isDirectory()) continue;
      found.push(path.join(full, 'config'));
      await walk(path.join(full, 'modules'), depth + 1);
    }
  };
  await walk(path.join(gitDir, 'modules'), 0);
  return found;
}

async function exists(file: string): Promise<boolean> {
  return lstat(file).then(
    () => true,
    () => false,
  );
}

/**
 * Removes the credentials a checkout left in the workspace's git configuration: `http.<url>.extraheader`
 * (actions/checkout v4 and earlier), `include.path`/`includeIf.<cond>.path` entries whose file holds such a
 * header (v6 keeps it in a file under RUNNER_TEMP), and user:password in remote URLs. Returns how many
 * entries went.
 */
export async function dropPersistedCredentials(git: GitRepo): Promise<number> {
  let removed = 0;
  for (const file of await configFiles(path.join(git.dir, '.git'))) {
    if (!(await exists(file))) continue;
    for (const { name } of await entries(git, file, '^http\\..*\\.extraheader$')) {
      await git.configFile(file, ['--unset-all', name]);
      removed++;
    }
    for (const { name, value } of await entries(git, file, '^include(if\\..*)?\\.path$')) {
      const included = path.resolve(path.dirname(file), value.replace(/^~(?=\/)/, process.env.HOME ?? '~'));
      if (!(await exists(included))) continue;
      if ((await entries(git, included, '^http\\..*\\.extraheader$')).length === 0) continue;
      await git.configFile(file, ['--fixed-value', '--unset-all', name, value]);
      removed++;
    }
    for (const { name, value } of await entries(git, file, '^remote\\..*\\.(push)?url$')) {
      const clean = value.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/@]*@/i, '$1');
      if (clean === value) continue;
      await git.configFile(file, ['--fixed-value', '--replace-all', name, clean, value]);
      removed++;
    }
  }
  return removed;
}

export interface SavedConfig {
  /**
   * Puts the configuration, hooks and `shallow` back when `.git` is still a directory, then disarms every
   * git directory of the workspace (git-dirs.ts). `git` runs `git config --file` only: our own repository.
   */
  restore(git: GitRepo): Promise<Disarmed>;
}

/** The regular files in .git/hooks and their contents (hooks are small scripts). */
interface Hook {
  content: Buffer;
  mode: number;
}

async function readHooks(hooksDir: string): Promise<Map<string, Hook>> {
  const hooks = new Map<string, Hook>();
  if (!(await lstat(hooksDir).catch(() => undefined))?.isDirectory()) return hooks;
  for (const name of await readdir(hooksDir)) {
    const file = path.join(hooksDir, name);
    const stat = await lstat(file);
    if (stat.isFile()) hooks.set(name, { content: await readFile(file), mode: stat.mode & 0o777 });
  }
  return hooks;
}

/**
 * Removes the hooks the model added or changed, so that no later step's git (a workflow's own push) runs
 * them. A `hooks` that is no longer a directory (a link to a directory outside) is removed, never what it
 * names, and a directory made in its place.
 */
async function restoreHooks(hooksDir: string, saved: Map<string, Hook>): Promise<void> {
  const stat = await lstat(hooksDir).catch(() => undefined);
  if (stat && !stat.isDirectory()) await rm(hooksDir, { force: true });
  if (!stat?.isDirectory()) {
    if (saved.size === 0) return;
    await mkdir(hooksDir);
  }
  for (const name of await readdir(hooksDir)) {
    const file = path.join(hooksDir, name);
    const before = saved.get(name);
    const now = await lstat(file);
    const same =
      before &&
      now.isFile() &&
      (now.mode & 0o777) === before.mode &&
      (await readFile(file)).equals(before.content);
    if (!same) await rm(file, { recursive: true, force: true });
  }
  for (const [name, hook] of saved) {
    const file = path.join(hooksDir, name);
    if (!(await lstat(file).catch(() => undefined)))
      await writeFile(file, hook.content, { flag: 'wx', mode: hook.mode });
  }
}

/** A new file renamed over `file`: a link planted in its place is replaced, never followed. */
async function writeOver(file: string, text: string): Promise<void> {
  const temporary = `${file}.todo-agent-${process.pid}`;
  await rm(temporary, { recursive: true, force: true });
  await writeFile(temporary, text, { flag: 'wx' });
  if ((await lstat(file).catch(() => undefined))?.isDirectory()) await rm(file, { recursive: true });
  await rename(temporary, file);
}

async function readIfFile(file: string): Promise<string | undefined> {
  return (await lstat(file).catch(() => undefined))?.isFile() ? await readFile(file, 'utf8') : undefined;
}

/** Remembers the workspace's git configuration, hooks and `shallow` (call it before the first tool call). */
export async function saveConfig(workspace: string): Promise<SavedConfig> {
  const gitDir = path.join(workspace, '.git');
  await assertGitDir(gitDir);
  const saved = new Map<string, string | undefined>();
  for (const name of CONFIG_FILES) saved.set(name, await readIfFile(path.join(gitDir, name)));
  const shallow = await readIfFile(path.join(gitDir, SHALLOW));
  const hooksDir = path.join(gitDir, 'hooks');
  const hooks = await readHooks(hooksDir);
  return {
    async restore(git) {
      // Checked here, written just below: no process of the model is left to swap it meanwhile.
      if ((await lstat(gitDir).catch(() => undefined))?.isDirectory()) {
        await restoreHooks(hooksDir, hooks);
        for (const [name, text] of saved) {
          const file = path.join(gitDir, name);
          if (text === undefined) await rm(file, { recursive: true, force: true });
          else await writeOver(file, text);
        }
        const shallowFile = path.join(gitDir, SHALLOW);
        const now = await lstat(shallowFile).catch(() => undefined);
        if (shallow !== undefined && !now?.isFile()) await writeOver(shallowFile, shallow);
      }
      return await disarmGitDirs(workspace, git, [gitDir]);
    },
  };
}

async function assertGitDir(gitDir: string): Promise<void> {
  const stat = await lstat(gitDir).catch(() => undefined);
  if (!stat?.isDirectory()) {
    throw new Error(`${gitDir} is not a directory (replaced by a file or a link?), so nothing is committed`);
  }
}
