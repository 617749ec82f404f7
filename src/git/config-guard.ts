// The workspace's git configuration as something the model must not steer: the credentials
// actions/checkout persisted are removed before the first tool call, and the configuration, hooks and
// `shallow` as they were then are put back after the last one, for the workflow's later steps (our own git
// works in a directory of its own and reads none of them). Nothing is written back through a link. What is
// saved is written to a directory the tools never see as well, for the post step to put back if the
// action's process is killed (workspace-guard.ts).
import { lstat, mkdir, readFile, readdir, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { GitRepo } from './repo.js';
import type { ForcedRemoval } from './forced-removal.js';

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

/** The regular files in .git/hooks, their contents (base64: hooks are small scripts) and modes. */
interface Hook {
  name: string;
  content: string;
  mode: number;
}

/** What saveConfig keeps, as it is written to disk for the post step (an absent file is `null`). */
interface Snapshot {
  files: Record<string, string | null>;
  shallow: string | null;
  hooks: Hook[];
}

/** The snapshot's file in the directory it is saved in (our own git directory, hidden from the tools). */
const SNAPSHOT_FILE = 'todo-agent-saved.json';

export interface SavedConfig {
  /** The checkout's `.git/config` as it was saved (credentials removed), for a `.git` made anew. */
  readonly config: string | undefined;
  readonly shallow: string | undefined;
  /**
   * Puts the configuration, hooks and `shallow` back and returns true when `.git` is a directory; returns
   * false, changing nothing, when it is not (a link, a file, or gone): the caller makes a new one then. What
   * resists removal is opened up, renamed aside and reported through `entries`, never a throw.
   */
  restore(entries: ForcedRemoval): Promise<boolean>;
  /** Writes the saved hooks into `hooksDir` (of a `.git` made anew). */
  writeHooks(hooksDir: string): Promise<void>;
}

async function readHooks(hooksDir: string): Promise<Hook[]> {
  const hooks: Hook[] = [];
  if (!(await lstat(hooksDir).catch(() => undefined))?.isDirectory()) return hooks;
  for (const name of (await readdir(hooksDir)).sort()) {
    const file = path.join(hooksDir, name);
    const stat = await lstat(file);
    if (stat.isFile())
      hooks.push({ name, content: (await readFile(file)).toString('base64'), mode: stat.mode & 0o777 });
  }
  return hooks;
}

/**
 * Removes the hooks the model added or changed, so that no later step's git (a workflow's own push) runs
 * them. A `hooks` that is no longer a directory (a link to a directory outside) is removed, never what it
 * names, and a directory made in its place.
 */
async function restoreHooks(hooksDir: string, saved: Hook[], entries: ForcedRemoval): Promise<void> {
  const stat = await lstat(hooksDir).catch(() => undefined);
  if (stat && !stat.isDirectory()) await entries.remove(hooksDir);
  if (!stat?.isDirectory()) {
    if (saved.length === 0) return;
    await mkdir(hooksDir);
  }
  await entries.writable(hooksDir);
  const byName = new Map(saved.map((hook) => [hook.name, hook]));
  for (const { name } of await entries.list(hooksDir)) {
    const file = path.join(hooksDir, name);
    const before = byName.get(name);
    const now = await lstat(file);
    const same =
      before &&
      now.isFile() &&
      (now.mode & 0o777) === before.mode &&
      (await readFile(file, 'base64').catch(() => undefined)) === before.content;
    if (!same) await entries.remove(file);
  }
  await writeHooks(hooksDir, saved);
}

/** Writes each saved hook that is missing (one that resisted removal stays renamed aside, or reported). */
async function writeHooks(hooksDir: string, saved: Hook[]): Promise<void> {
  for (const hook of saved) {
    const file = path.join(hooksDir, hook.name);
    if (await lstat(file).catch(() => undefined)) continue;
    await writeFile(file, Buffer.from(hook.content, 'base64'), { flag: 'wx', mode: hook.mode });
  }
}

/** A new file renamed over `file`: a link planted in its place is replaced, never followed. */
async function writeOver(file: string, text: string, entries: ForcedRemoval): Promise<void> {
  const temporary = `${file}.todo-agent-${process.pid}`;
  await entries.remove(temporary);
  await writeFile(temporary, text, { flag: 'wx' });
  if ((await lstat(file).catch(() => undefined))?.isDirectory()) await entries.remove(file);
  await rename(temporary, file).catch(async () => {
    await rm(temporary, { force: true });
    await entries.remove(file);
  });
}

async function readIfFile(file: string): Promise<string | null> {
  return (await lstat(file).catch(() => undefined))?.isFile() ? await readFile(file, 'utf8') : null;
}

/**
 * Remembers the workspace's git configuration, hooks and `shallow` (call it before the first tool call), in
 * `into` too (a directory the tools never see), where the post step finds them if the action is killed.
 */
export async function saveConfig(workspace: string, into: string): Promise<SavedConfig> {
  const gitDir = path.join(workspace, '.git');
  await assertGitDir(gitDir);
  const files: Snapshot['files'] = {};
  for (const name of CONFIG_FILES) files[name] = await readIfFile(path.join(gitDir, name));
  const snapshot: Snapshot = {
    files,
    shallow: await readIfFile(path.join(gitDir, SHALLOW)),
    hooks: await readHooks(path.join(gitDir, 'hooks')),
  };
  const file = path.join(into, SNAPSHOT_FILE);
  await writeFile(`${file}.new`, JSON.stringify(snapshot), { mode: 0o600 });
  await rename(`${file}.new`, file);
  return savedConfig(gitDir, snapshot);
}

/** What saveConfig saved in `from`, for the workspace's `.git`; undefined when nothing was saved there. */
export async function loadConfig(workspace: string, from: string): Promise<SavedConfig | undefined> {
  const text = await readFile(path.join(from, SNAPSHOT_FILE), 'utf8').catch(() => undefined);
  if (text === undefined) return undefined;
  return savedConfig(path.join(workspace, '.git'), JSON.parse(text) as Snapshot);
}

function savedConfig(gitDir: string, snapshot: Snapshot): SavedConfig {
  const hooksDir = path.join(gitDir, 'hooks');
  return {
    config: snapshot.files.config ?? undefined,
    shallow: snapshot.shallow ?? undefined,
    async restore(entries) {
      // Checked here, written just below: no process of the model is left to swap it meanwhile.
      if (!(await lstat(gitDir).catch(() => undefined))?.isDirectory()) return false;
      await entries.writable(gitDir);
      await restoreHooks(hooksDir, snapshot.hooks, entries);
      for (const [name, text] of Object.entries(snapshot.files)) {
        const file = path.join(gitDir, name);
        if (text === null) await entries.remove(file);
        else await writeOver(file, text, entries);
      }
      const shallowFile = path.join(gitDir, SHALLOW);
      const now = await lstat(shallowFile).catch(() => undefined);
      if (snapshot.shallow !== null && !now?.isFile())
        await writeOver(shallowFile, snapshot.shallow, entries);
      return true;
    },
    writeHooks: async (dir) => {
      await mkdir(dir, { recursive: true });
      await writeHooks(dir, snapshot.hooks);
    },
  };
}

async function assertGitDir(gitDir: string): Promise<void> {
  const stat = await lstat(gitDir).catch(() => undefined);
  if (!stat?.isDirectory()) {
    throw new Error(`${gitDir} is not a directory (replaced by a file or a link?), so nothing is committed`);
  }
}
