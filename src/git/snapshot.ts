// The trusted snapshot: the workspace as the job handed it to us, which is all the trusted side reads of it.
// It is the base commit's tracked files (from our own git directory, which no tool can reach) and the
// untracked files earlier workflow steps left (a node_modules, a .venv), as they stood when the action
// started: before any branch is checked out and before the first tool call. In the CLI it is the working
// directory as the run starts. Nothing the model (or a pull request's head) writes in the work tree is in it.
//
// Its consumers (docs/security.md lists them): the instructions and the MCP configuration file (`committed`),
// the toolchains' project settings the network allowlist is asked with (`projectFiles`), and local MCP
// servers, whose command, file arguments and modules resolve in `directory()`, a read-only copy made only
// for a run that has such a server (copying a large node_modules costs seconds; see `take`).
import { execFile } from 'node:child_process';
import {
  chmod,
  lstat,
  mkdtemp,
  readFile,
  readdir,
  readlink,
  realpath,
  rm,
  stat,
  symlink,
} from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { GitError, gitEnv, runGit } from './git-process.js';

const execFileAsync = promisify(execFile);

/**
 * The project files the toolchains read their registries from (npm's project .npmrc, cargo's and Maven's
 * project settings): the allowlist is asked with these, as the snapshot has them.
 */
export const PROJECT_FILES = ['.npmrc', '.cargo/config.toml', '.cargo/config', '.mvn/settings.xml'] as const;
/** A project file larger than this is left out (no registry setting is that long). */
const MAX_PROJECT_FILE = 64 * 1024;
/** Paths handed to one `cp`. */
const CP_BATCH = 500;

export interface SnapshotStart {
  /** The workspace, as the run starts. */
  workspace: string;
  /**
   * `git`: the workspace is a checkout; what git does not track is what earlier steps left. `directory`: the
   * whole directory (the CLI's working directory), its `.git` left out.
   */
  kind: 'git' | 'directory';
  /** Copy the untracked files now, for `directory()` (a run with a local MCP server). */
  copy: boolean;
  /** A secret-free environment for git and cp. */
  env: NodeJS.ProcessEnv;
  /** Where the copy goes (a directory the tools never see: RUNNER_TEMP, else the system's temp). */
  parent?: string;
}

/** Where the tracked files come from, once the base commit is known (our own git directory). */
export interface SnapshotBase {
  /** Our git directory and the commit whose tracked files the snapshot holds. */
  gitDir: string;
  commit: string;
}

export class Snapshot {
  readonly workspace: string;
  readonly #start: SnapshotStart;
  readonly #env: NodeJS.ProcessEnv;
  /** The project files that were untracked at start, as they stood then. */
  readonly #startFiles: ReadonlyMap<string, string>;
  /** The copy of the untracked files made at the start (when asked for). */
  readonly #copied: Promise<string> | undefined;
  #base: SnapshotBase | undefined;
  #directory: Promise<string> | undefined;

  private constructor(
    start: SnapshotStart,
    startFiles: Map<string, string>,
    copied: Promise<string> | undefined,
  ) {
    this.workspace = start.workspace;
    this.#start = start;
    this.#env = start.env;
    this.#startFiles = startFiles;
    this.#copied = copied;
  }

  /**
   * Takes the snapshot's start: what is untracked now, the project files among it, and (when asked for) a
   * copy of the untracked files, done before this resolves, so before any branch checkout or tool call.
   * Measured with a 30,000-file tree (28,000 of them, 130 MB, in an untracked node_modules): listing 16–24
   * ms; the copy 2.5 s on an idle two-core machine, 3.5–47 s on one shared by five busy engineers (the disk's
   * writes); a reflink where the filesystem has them. Paid only by runs that may start a local MCP server,
   * beside GitHub's first reads.
   */
  static async take(start: SnapshotStart): Promise<Snapshot> {
    const untracked = await untrackedEntries(start);
    const startFiles = new Map<string, string>();
    for (const file of PROJECT_FILES) {
      if (!isUntracked(untracked, file)) continue;
      const text = await readSmall(path.join(start.workspace, file));
      if (text !== undefined) startFiles.set(file, text);
    }
    const copied = start.copy ? Promise.resolve(await copyEntries(start, untracked)) : undefined;
    return new Snapshot(start, startFiles, copied);
  }

  /** The base commit, once known: the tracked files come from it, read in our own git directory. */
  setBase(base: SnapshotBase): void {
    this.#base = base;
  }

  /** A file of the base commit (undefined without one, or when it has no such file). */
  async committed(file: string): Promise<string | undefined> {
    const base = this.#base;
    if (!base) return undefined;
    const env = gitEnv(this.#env, { gitDir: base.gitDir, workTree: this.workspace });
    const result = await runGit(this.workspace, env, ['cat-file', 'blob', `${base.commit}:${file}`]);
    return result.code === 0 ? result.stdout : undefined;
  }

  /** The project files the toolchains read (PROJECT_FILES), as the snapshot holds them, by path. */
  async projectFiles(): Promise<Record<string, string>> {
    const files: Record<string, string> = {};
    for (const file of PROJECT_FILES) {
      const text = this.#startFiles.get(file) ?? (await this.committed(file));
      if (text !== undefined && text.length <= MAX_PROJECT_FILE) files[file] = text;
    }
    return files;
  }

  /**
   * The whole snapshot as a directory (the untracked files copied at start, then the base commit's tracked
   * files written over them), made on the first call; it is shown read-only to the MCP servers.
   */
  directory(): Promise<string> {
    this.#directory ??= this.#materialize();
    return this.#directory;
  }

  /** Removes the copy. */
  async remove(): Promise<void> {
    const dir = (await this.#directory?.catch(() => undefined)) ?? (await this.#copied);
    if (dir) await rm(dir, { recursive: true, force: true }).catch(() => undefined);
  }

  async #materialize(): Promise<string> {
    // Taken without the copy (no local server was expected): the base commit's files alone, never the
    // untracked files as they are now.
    const dir = await (this.#copied ?? copyEntries(this.#start, []));
    const base = this.#base;
    if (base) {
      // A private index of our own: the base commit's tracked files written into the copy (no hook, no
      // filter the workspace configures: our git directory's configuration, locked down).
      const env = gitEnv(this.#env, { gitDir: base.gitDir, workTree: dir });
      const index = { GIT_INDEX_FILE: path.join(dir, '..', `${path.basename(dir)}.index`) };
      for (const args of [
        ['read-tree', base.commit],
        ['checkout-index', '--all', '--force'],
      ]) {
        const result = await runGit(dir, env, args, index);
        if (result.code !== 0) throw new GitError(args, result.stderr, result.code);
      }
      await rm(index.GIT_INDEX_FILE, { force: true });
    }
    await keepLinksInside(dir, this.workspace);
    return dir;
  }
}

/**
 * Every symbolic link of the copy that leads into the workspace (an absolute target there, or a relative one
 * climbing out of the copy) made to lead to the same place in the copy instead, never to the live work tree;
 * a relative one that climbs out of the workspace made absolute, so it leads where it did from the workspace
 * (the runner's files) wherever the copy is shown.
 */
async function keepLinksInside(dir: string, workspace: string): Promise<void> {
  const found = await execFileAsync('find', ['.', '-type', 'l', '-print0'], {
    cwd: dir,
    env: { PATH: '/usr/bin:/bin', LC_ALL: 'C' },
    maxBuffer: 64 * 1024 * 1024,
  });
  const roots = [...new Set([workspace, await realpath(workspace).catch(() => workspace)])];
  for (const link of found.stdout.split('\0').filter((entry) => entry !== '')) {
    const inCopy = path.join(dir, link);
    const target = await readlink(inCopy);
    const leadsTo = path.resolve(path.dirname(path.join(workspace, link)), target);
    const root = roots.find((candidate) => isWithin(leadsTo, candidate));
    const wanted = root
      ? path.relative(path.dirname(inCopy), path.join(dir, path.relative(root, leadsTo))) || '.'
      : leadsTo;
    if (wanted === target) continue;
    await rm(inCopy);
    await symlink(wanted, inCopy);
  }
}

function isWithin(inner: string, outer: string): boolean {
  const relative = path.relative(outer, inner);
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
}

/** What is untracked in the workspace now (directories whole, with a `/`); every entry but `.git` if asked. */
async function untrackedEntries({ workspace, kind, env }: SnapshotStart): Promise<string[]> {
  if (kind === 'directory')
    return (await readdir(workspace)).filter((name) => name !== '.git').map((name) => name);
  const args = ['ls-files', '--others', '--directory', '-z'];
  const result = await runGit(workspace, gitEnv(env), args);
  if (result.code !== 0) throw new GitError(args, result.stderr, result.code);
  return result.stdout.split('\0').filter((entry) => entry !== '');
}

/** `file` (relative) is one of the untracked entries, or inside one. */
function isUntracked(untracked: readonly string[], file: string): boolean {
  return untracked.some((entry) =>
    entry.endsWith('/') ? file.startsWith(entry) : entry === file || file.startsWith(`${entry}/`),
  );
}

async function readSmall(file: string): Promise<string | undefined> {
  const info = await lstat(file).catch(() => undefined);
  if (!info?.isFile() || info.size > MAX_PROJECT_FILE) return undefined;
  return await readFile(file, 'utf8').catch(() => undefined);
}

/** Copies the entries (modes, links and times kept) into a new directory, private to this user. */
async function copyEntries(start: SnapshotStart, entries: readonly string[]): Promise<string> {
  const parent = (await usableDir(start.parent)) ?? tmpdir();
  const dir = await mkdtemp(path.join(parent, 'todo-agent-snapshot-'));
  // Readable by the servers' identity (not this user's when the workspace belongs to root); never writable.
  await chmod(dir, 0o755);
  const names = entries.map((entry) => entry.replace(/\/$/, ''));
  for (let at = 0; at < names.length; at += CP_BATCH)
    await execFileAsync(
      'cp',
      ['-a', '--reflink=auto', '--parents', '-t', dir, '--', ...names.slice(at, at + CP_BATCH)],
      {
        cwd: start.workspace,
        env: { PATH: '/usr/bin:/bin', LC_ALL: 'C' },
        maxBuffer: 1024 * 1024,
      },
    );
  return dir;
}

async function usableDir(dir: string | undefined): Promise<string | undefined> {
  if (!dir || !path.isAbsolute(dir)) return undefined;
  return (await stat(dir)
    .then((s) => s.isDirectory())
    .catch(() => false))
    ? dir
    : undefined;
}
