// What is never delivered, whatever .gitignore says: generated environments and caches, new files too
// large to belong in a repository, and new symbolic links that lead out of it. Pure: it sorts the paths a
// change adds.
import path from 'node:path';

/**
 * A path held back: never delivered anywhere (not committed, not attached), only named in the pull request and
 * the run record. Not to be confused with a `WorkflowPatch` (workflow-files.ts): work the token may not commit,
 * left out of the commit but delivered beside it, as a patch in the pull request's description.
 */
export interface HeldBack {
  /** A folder (held back whole) or a file, relative to the repository's root. */
  path: string;
  why: string;
  /** How many of the change's new files it holds. */
  files: number;
}

/** A new untracked file over this is held back (GitHub warns at 50 MB and refuses 100 MB). */
export const MAX_NEW_FILE_BYTES = 10 * 1024 * 1024;

/** Folders that only tools make, by name, wherever they sit. */
const GENERATED_FOLDERS: Record<string, string> = {
  node_modules: 'installed Node packages',
  __pycache__: 'Python bytecode cache',
  '.pytest_cache': 'pytest cache',
  '.mypy_cache': 'mypy cache',
  '.ruff_cache': 'Ruff cache',
  '.tox': 'tox environments',
};

/** Files that only tools make, by name. */
const GENERATED_FILES: Array<[RegExp, string]> = [
  [/\.pyc$/, 'Python bytecode'],
  [/^\.DS_Store$/, 'macOS folder metadata'],
];

/** A file a change adds; `link` is a symbolic link's target, as git stores it. */
export interface NewFile {
  path: string;
  size: number;
  link?: string;
}

/**
 * A link's target that leaves the repository: absolute, or climbing out of the root. A link into the
 * repository is the work's own (committed as a link, never followed); one out of it names a place on the
 * runner (`/home/runner/.npmrc`) that a later step copying files would follow.
 */
export function leadsOut(file: string, target: string): boolean {
  if (target.startsWith('/') || target.startsWith('~')) return true;
  const resolved = path.posix.normalize(path.posix.join(path.posix.dirname(file), target));
  return resolved === '..' || resolved.startsWith('../');
}

/**
 * Sorts the paths a change adds into those delivered and those held back. A virtualenv is any folder that
 * holds a `pyvenv.cfg` among the new files; a generated folder is held back whole, named once.
 */
export function holdBack(
  added: ReadonlyArray<NewFile>,
  /** Tracked paths the change makes symbolic links (retargeted, or a file turned into one). */
  changedLinks: ReadonlyArray<{ path: string; link: string }> = [],
): {
  kept: string[];
  heldBack: HeldBack[];
  /** Every new file held back, one by one (a held folder may also hold tracked files, which stay). */
  heldPaths: string[];
  /** Tracked paths held back: committed as the start has them (a link turned to lead out). */
  restored: string[];
} {
  const venvs = added
    .filter(({ path }) => path === 'pyvenv.cfg' || path.endsWith('/pyvenv.cfg'))
    .map(({ path }) => path.slice(0, -'pyvenv.cfg'.length).replace(/\/$/, ''));
  const held = new Map<string, HeldBack>();
  const kept: string[] = [];
  const heldPaths: string[] = [];
  const hold = (path: string, why: string, file: string) => {
    const entry = held.get(path) ?? { path, why, files: 0 };
    entry.files++;
    held.set(path, entry);
    heldPaths.push(file);
  };
  for (const { path, size, link } of added) {
    const venv = venvs.find((root) => root === '' || path === root || path.startsWith(`${root}/`));
    if (venv !== undefined) {
      hold(venv || '.', 'a Python virtualenv (it holds pyvenv.cfg)', path);
      continue;
    }
    const parts = path.split('/');
    const folderAt = parts.slice(0, -1).findIndex((part) => GENERATED_FOLDERS[part]);
    if (folderAt >= 0) {
      hold(parts.slice(0, folderAt + 1).join('/'), GENERATED_FOLDERS[parts[folderAt]!]!, path);
      continue;
    }
    // A link out inside a held folder (a virtualenv's bin/python) goes with the folder, named once.
    if (link !== undefined && leadsOut(path, link)) {
      hold(path, 'a symbolic link leading out of the repository', path);
      continue;
    }
    const name = parts.at(-1) ?? path;
    const file = GENERATED_FILES.find(([pattern]) => pattern.test(name));
    if (file) hold(path, file[1], path);
    else if (size > MAX_NEW_FILE_BYTES)
      hold(path, `a new file of ${megabytes(size)}, over the 10 MB a new file may have`, path);
    else kept.push(path);
  }
  const restored: string[] = [];
  for (const { path, link } of changedLinks) {
    if (!leadsOut(path, link)) continue;
    held.set(path, {
      path,
      why: 'a symbolic link changed to lead out of the repository (kept as it was)',
      files: 1,
    });
    restored.push(path);
  }
  return { kept, heldBack: [...held.values()], heldPaths, restored };
}

/** A folder or file left out of the work, for the record: its path, how many files, and why when known. */
export interface LeftOut {
  path: string;
  files: number;
  why?: string;
}

/**
 * Paths a commit left out (`git status` lists every file), grouped as the model's last look and the pull
 * request show them: each folder held back whole once, with its count and why (`held`: what delivery held
 * back, else the same rules applied to the paths alone), then the other files one by one.
 */
export function groupLeftOut(paths: readonly string[], held: readonly HeldBack[] = []): LeftOut[] {
  const groups = new Map<string, LeftOut>();
  const add = (path: string, files: number, why?: string) => {
    const entry = groups.get(path) ?? { path, files: 0, ...(why ? { why } : {}) };
    entry.files += files;
    groups.set(path, entry);
  };
  const rest: NewFile[] = [];
  for (const path of paths) {
    const group = held.find((h) => h.path === '.' || path === h.path || path.startsWith(`${h.path}/`));
    if (group) add(group.path, 1, group.why);
    else rest.push({ path, size: 0 });
  }
  const sorted = holdBack(rest);
  for (const { path, files, why } of sorted.heldBack) add(path, files, why);
  for (const path of sorted.kept) add(path, 1);
  return [...groups.values()];
}

export function megabytes(bytes: number): string {
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}
