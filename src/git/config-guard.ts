// The workspace's git configuration as something the model must not steer: the credentials
// actions/checkout persisted are removed before the first tool call, and the configuration (and hooks) as
// they were then are put back after the last one, before our own git commits and pushes.
import { lstat, readFile, readdir, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { GitRepo } from './repo.js';

/** Files in .git that change which configuration or repository git reads; absent ones stay absent. */
const CONFIG_FILES = ['config', 'config.worktree', 'commondir'] as const;

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
  /** Puts the configuration back; throws if `.git` is no longer the directory it was. */
  restore(): Promise<void>;
}

/** The regular files in .git/hooks and their contents (hooks are small scripts). */
interface Hook {
  content: Buffer;
  mode: number;
}

async function readHooks(hooksDir: string): Promise<Map<string, Hook>> {
  const hooks = new Map<string, Hook>();
  const names = await readdir(hooksDir).catch(() => [] as string[]);
  for (const name of names) {
    const file = path.join(hooksDir, name);
    const stat = await lstat(file);
    if (stat.isFile()) hooks.set(name, { content: await readFile(file), mode: stat.mode & 0o777 });
  }
  return hooks;
}

/**
 * Removes the hooks the model added or changed, so that no later step's git (a workflow's own push) runs
 * them: our own git ignores them anyway.
 */
async function restoreHooks(hooksDir: string, saved: Map<string, Hook>): Promise<void> {
  const names = await readdir(hooksDir).catch(() => [] as string[]);
  for (const name of names) {
    const file = path.join(hooksDir, name);
    const before = saved.get(name);
    const stat = await lstat(file);
    const same =
      before &&
      stat.isFile() &&
      (stat.mode & 0o777) === before.mode &&
      (await readFile(file)).equals(before.content);
    if (same) continue;
    await rm(file, { recursive: true, force: true });
    if (before) await writeFile(file, before.content, { mode: before.mode });
  }
}

/** Remembers the workspace's git configuration and hooks (call it before the first tool call). */
export async function saveConfig(workspace: string): Promise<SavedConfig> {
  const gitDir = path.join(workspace, '.git');
  await assertGitDir(gitDir);
  const saved = new Map<string, string | undefined>();
  for (const name of CONFIG_FILES) {
    const file = path.join(gitDir, name);
    saved.set(name, (await exists(file)) ? await readFile(file, 'utf8') : undefined);
  }
  const hooksDir = path.join(gitDir, 'hooks');
  const hooks = await readHooks(hooksDir);
  return {
    async restore() {
      await assertGitDir(gitDir);
      await restoreHooks(hooksDir, hooks);
      for (const [name, text] of saved) {
        const file = path.join(gitDir, name);
        if (text === undefined) {
          await rm(file, { recursive: true, force: true });
          continue;
        }
        // A new file renamed over the old one: a symlink planted in its place is replaced, not followed.
        const temporary = `${file}.todo-agent-${process.pid}`;
        await rm(temporary, { recursive: true, force: true });
        await writeFile(temporary, text, { flag: 'wx' });
        if ((await lstat(file).catch(() => undefined))?.isDirectory()) await rm(file, { recursive: true });
        await rename(temporary, file);
      }
    },
  };
}

async function assertGitDir(gitDir: string): Promise<void> {
  const stat = await lstat(gitDir).catch(() => undefined);
  if (!stat?.isDirectory()) {
    throw new Error(`${gitDir} is not a directory (replaced by a file or a link?), so nothing is committed`);
  }
}
