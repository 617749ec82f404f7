// Every git directory of the workspace made safe for a later step's plain `git status`, `git log` or
// `git diff`: the top `.git`, nested repositories the model made, submodules' directories under
// `.git/modules`, worktrees, and whatever a `.git` file or `commondir` names. No link in any of them leads
// out of the workspace, no pointer file (gitfile, `commondir`, alternates) names a place outside it, and a
// nested repository keeps only configuration that runs nothing (no fsmonitor, hooksPath, filter, pager,
// editor, alias, sshCommand, credential helper, include…) and no hooks. Runs after the last tool call, when
// no process of the model is left, and before our own git stages anything (staging a nested repository
// reads its HEAD and refs). A git directory is trusted for what it is (the top `.git`, a real directory that
// config-guard.ts repairs), never for where a link or `realpath` leads; what the model made unreadable or
// unremovable is opened up, removed or renamed aside, and reported (forced-removal.ts), never a stop.
import { lstat, readFile, readlink, realpath, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { GitRepo } from './repo.js';
import { ForcedRemoval, type Resisted } from './forced-removal.js';

export interface Disarmed {
  /** Links (and pointer files) removed because they led out of the workspace, relative to it. */
  links: string[];
  /** Nested git directories whose configuration was cut down to inert settings, relative to the workspace. */
  configs: string[];
  /** What could not be removed or read. */
  resisted: Resisted;
}

/** Inert settings a nested repository keeps (names as `git config --list` prints them). */
const INERT = [
  /^core\.(repositoryformatversion|filemode|bare|logallrefupdates|ignorecase|precomposeunicode|symlinks|autocrlf|eol|safecrlf|quotepath|sparsecheckout|sparsecheckoutcone|checkstat|trustctime|abbrev|splitindex|untrackedcache|commitgraph|multipackindex)$/,
  /^extensions\.(objectformat|refstorage|worktreeconfig|preciousobjects|partialclone|noop)$/,
  /^remote\..+\.(url|pushurl|fetch|push|mirror|tagopt|prune|promisor|partialclonefilter)$/,
  /^branch\..+\.(remote|merge|rebase|pushremote)$/,
  /^submodule\..+\.(url|active|branch)$/,
  /^user\.(name|email)$/,
  /^(index\.version|init\.defaultbranch|gc\.auto|fetch\.prune|pull\.rebase)$/,
];

/** Is `inner` the workspace or inside it (both real paths)? */
function inside(inner: string, root: string): boolean {
  const relative = path.relative(root, inner);
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
}

/** The real path `target` names, or undefined when it does not exist (a dangling link proves nothing). */
async function real(target: string): Promise<string | undefined> {
  return await realpath(target).catch(() => undefined);
}

/** How many directories the work tree's walk reads at once. */
const WALK_PARALLEL = 16;

/**
 * Every entry named `.git` in the work tree and every directory git would take for a bare repository (it
 * holds `HEAD`, `objects` and `refs`) if a later step ran git inside it, walked without following links and
 * without entering a `.git`; sorted by path. A directory made unreadable is opened up to be walked.
 */
async function findGitEntries(
  root: string,
  entries: ForcedRemoval,
): Promise<Array<{ path: string; bare: boolean }>> {
  const found: Array<{ path: string; bare: boolean }> = [];
  for (const queue = [root]; queue.length > 0;) {
    const dirs = queue.splice(0, WALK_PARALLEL);
    const listed = await Promise.all(dirs.map((dir) => entries.list(dir)));
    listed.forEach((entries, i) => {
      const dir = dirs[i]!;
      const names = new Set(entries.map((entry) => entry.name));
      if (names.has('HEAD') && names.has('objects') && names.has('refs'))
        found.push({ path: dir, bare: true });
      for (const entry of entries) {
        const full = path.join(dir, entry.name);
        if (entry.name === '.git') found.push({ path: full, bare: false });
        else if (entry.isDirectory()) queue.push(full);
      }
    });
  }
  return found.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

class Disarm {
  readonly result: Pick<Disarmed, 'links' | 'configs'> = { links: [], configs: [] };
  readonly #root: string;
  readonly #git: GitRepo;
  readonly #trusted: ReadonlySet<string>;
  readonly #seen = new Set<string>();
  readonly #entries: ForcedRemoval;

  constructor(root: string, git: GitRepo, trusted: ReadonlySet<string>, entries: ForcedRemoval) {
    this.#root = root;
    this.#git = git;
    this.#trusted = trusted;
    this.#entries = entries;
  }

  #name(file: string): string {
    return path.relative(this.#root, file) || '.';
  }

  async #drop(file: string): Promise<void> {
    if (await this.#entries.remove(file)) this.result.links.push(this.#name(file));
  }

  /** A link is kept only when what it names exists and is inside the workspace. */
  async #checkLink(link: string): Promise<string | undefined> {
    const target = await real(path.resolve(path.dirname(link), await readlink(link)));
    if (target && inside(target, this.#root)) return target;
    await this.#drop(link);
    return undefined;
  }

  /** The path a pointer file names (relative to `base`), or undefined after removing a file that leads out. */
  async #checkPointer(file: string, named: string, base: string): Promise<string | undefined> {
    const target = await real(path.resolve(base, named));
    if (target && inside(target, this.#root)) return target;
    await this.#drop(file);
    return undefined;
  }

  /**
   * The work tree's git directories, found first (many directories read at once: a workspace with a
   * `node_modules` has thousands), then disarmed one at a time in path order.
   */
  async disarmWorkTree(root: string): Promise<void> {
    const found = await findGitEntries(root, this.#entries);
    for (const { path: entry, bare } of found) await (bare ? this.gitDir(entry) : this.#dotGit(entry));
  }

  async #dotGit(entry: string): Promise<void> {
    // Gone already: it sat inside a git directory disarmed before it (a bare repository's hooks, say).
    const stat = await lstat(entry).catch(() => undefined);
    if (!stat) return;
    if (stat.isSymbolicLink()) {
      const target = await this.#checkLink(entry);
      if (target) await this.gitDir(target);
    } else if (stat.isDirectory()) {
      await this.gitDir(entry);
    } else if (stat.isFile()) {
      const text = await this.#readOrDrop(entry);
      const named = text === undefined ? undefined : /^gitdir: (.+)$/m.exec(text)?.[1];
      const target = named ? await this.#checkPointer(entry, named.trim(), path.dirname(entry)) : undefined;
      if (target) await this.gitDir(target);
    }
  }

  /** One git directory: its links, its pointer files, its configuration and hooks, its nested git dirs. */
  async gitDir(dir: string): Promise<void> {
    const key = (await real(dir)) ?? dir;
    if (this.#seen.has(key)) return;
    this.#seen.add(key);
    await this.#entries.writable(dir);
    await this.#links(dir);
    const commondir = await this.#pointerFile(path.join(dir, 'commondir'));
    if (commondir) {
      const target = await this.#checkPointer(path.join(dir, 'commondir'), commondir, dir);
      if (target) await this.gitDir(target);
    }
    await this.#alternates(path.join(dir, 'objects', 'info', 'alternates'));
    if (!this.#trusted.has(key)) {
      await this.#inertConfig(dir);
      await this.#entries.remove(path.join(dir, 'hooks'));
    }
    for (const group of ['modules', 'worktrees']) await this.#nested(path.join(dir, group));
  }

  /** Every link under `dir` (not followed) that leads out is removed. */
  async #links(dir: string): Promise<void> {
    const entries = await this.#entries.list(dir);
    for (const entry of entries) {
      const full = path.join(dir, entry.name);
      if (entry.isSymbolicLink()) await this.#checkLink(full);
      else if (entry.isDirectory()) await this.#links(full);
    }
  }

  /**
   * A pointer file's text. One this user cannot read (made unreadable) is removed: git could not follow it
   * here either, but a later step's git as root would.
   */
  async #readOrDrop(file: string): Promise<string | undefined> {
    try {
      return await readFile(file, 'utf8');
    } catch {
      await this.#drop(file);
      return undefined;
    }
  }

  /** The first line of a regular file (links were dealt with already), or undefined. */
  async #pointerFile(file: string): Promise<string | undefined> {
    if (!(await lstat(file).catch(() => undefined))?.isFile()) return undefined;
    return (await this.#readOrDrop(file))?.split('\n')[0]?.trim() || undefined;
  }

  async #alternates(file: string): Promise<void> {
    if (!(await lstat(file).catch(() => undefined))?.isFile()) return;
    const lines = ((await this.#readOrDrop(file)) ?? '')
      .split('\n')
      .filter((line) => line.trim() && !line.startsWith('#'));
    for (const line of lines) {
      const target = await real(path.resolve(path.dirname(path.dirname(file)), line.trim()));
      if (!target || !inside(target, this.#root)) return await this.#drop(file);
    }
  }

  /** `modules/<name>` (nested again for submodules of submodules) and `worktrees/<id>`. */
  async #nested(group: string): Promise<void> {
    const entries = await this.#entries.list(group);
    for (const entry of entries) {
      if (!entry.isDirectory()) continue;
      const full = path.join(group, entry.name);
      const isGitDir = await lstat(path.join(full, 'HEAD')).then(
        () => true,
        () => false,
      );
      if (isGitDir) await this.gitDir(full);
      else await this.#nested(full); // a submodule named a/b lives in modules/a/b
    }
  }

  /** `config` and `config.worktree` rewritten with the inert settings only (a new file, renamed over). */
  async #inertConfig(dir: string): Promise<void> {
    for (const name of ['config', 'config.worktree']) {
      const file = path.join(dir, name);
      const stat = await lstat(file).catch(() => undefined);
      if (!stat) continue;
      // A file git cannot parse keeps nothing: it could not be read as inert either.
      const listed = stat.isFile()
        ? await this.#git.configFile(file, ['--null', '--list']).catch(() => undefined)
        : undefined;
      const kept: Array<[string, string]> = [];
      let dropped = listed === undefined;
      for (const record of (listed ?? '').split('\0').filter(Boolean)) {
        const newline = record.indexOf('\n');
        const key = newline === -1 ? record : record.slice(0, newline);
        const value = newline === -1 ? '' : record.slice(newline + 1);
        if (await this.#inert(dir, key, value)) kept.push([key, value]);
        else dropped = true;
      }
      if (!dropped) continue;
      const temporary = `${file}.todo-agent-${process.pid}`;
      await rm(temporary, { recursive: true, force: true });
      await writeFile(temporary, '', { flag: 'wx', mode: 0o644 });
      for (const [key, value] of kept) await this.#git.configFile(temporary, ['--add', key, value]);
      // A directory in its place is removed (or, unremovable, renamed aside: git reads no `config` then).
      if (stat.isDirectory()) await this.#entries.remove(file);
      await rename(temporary, file).catch(async () => {
        await rm(temporary, { force: true });
        await this.#entries.remove(file);
      });
      this.result.configs.push(this.#name(file));
    }
  }

  async #inert(dir: string, key: string, value: string): Promise<boolean> {
    if (key === 'core.worktree') {
      const target = await real(path.resolve(dir, value));
      return target !== undefined && inside(target, this.#root);
    }
    return INERT.some((pattern) => pattern.test(key));
  }
}

/**
 * The trusted git directories' real paths: each only while it is a directory itself. A link (or a `.git` file)
 * in its place is not trusted, whatever it leads to: its target is disarmed like any other.
 */
async function trustedDirs(trusted: readonly string[]): Promise<Set<string>> {
  const kept = new Set<string>();
  for (const dir of trusted) {
    if (!(await lstat(dir).catch(() => undefined))?.isDirectory()) continue;
    const resolved = await real(dir);
    if (resolved) kept.add(resolved);
  }
  return kept;
}

/**
 * Makes every git directory in `workspace` safe (see the top of this file). `trusted` git directories (the
 * top `.git`, whose configuration and hooks config-guard.ts put back) keep theirs, each only while it is a
 * real directory. `git` only reads and writes configuration files (`git config --file`): give it our own
 * repository, never the workspace's. `entries` collects what resisted (one per clean-up, shared with the
 * restore before it).
 */
export async function disarmGitDirs(
  workspace: string,
  git: GitRepo,
  trusted: readonly string[] = [],
  entries?: ForcedRemoval,
): Promise<Disarmed> {
  const root = await realpath(workspace);
  const stubborn = entries ?? new ForcedRemoval({ root });
  const disarm = new Disarm(root, git, await trustedDirs(trusted), stubborn);
  await disarm.disarmWorkTree(root);
  // Sorted: the log reads the same whatever order the file system lists entries in.
  return {
    links: disarm.result.links.sort(),
    configs: disarm.result.configs.sort(),
    resisted: stubborn.found,
  };
}
