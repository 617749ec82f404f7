// What git says of a change, read: `diff-tree --raw -z` as one change a file, `ls-tree -l -z` as each blob's
// size, `diff --numstat -z` as lines added and removed, `status --porcelain -z` as paths, and what `push
// --porcelain` refused itself. Pure parsing; repo.ts runs the commands.

/** One file's change between two trees, as `git diff-tree --raw` reports it, with the new blob's size. */
export interface TreeChange {
  path: string;
  /** A added, M modified, D deleted, T type changed (file ↔ link). */
  status: 'A' | 'M' | 'D' | 'T';
  oldMode: string;
  /** 100644 file, 100755 executable, 120000 symbolic link, 160000 submodule, 000000 deleted. */
  mode: string;
  blob: string;
  /** Bytes of the new blob (0 for a deletion). */
  size: number;
}

/** The changes of `git diff-tree -r -z --raw --no-renames --no-abbrev`, each with its new blob's size. */
export function treeChanges(raw: string, sizes: ReadonlyMap<string, number>): TreeChange[] {
  const fields = raw.split('\0');
  const changes: TreeChange[] = [];
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const [oldMode = '', mode = '', , blob = '', status = 'M'] = (fields[i] ?? '')
      .replace(/^:/, '')
      .split(' ');
    const path = fields[i + 1] ?? '';
    const size = sizes.get(path) ?? 0;
    changes.push({ path, status: status[0] as TreeChange['status'], oldMode, mode, blob, size });
  }
  return changes;
}

/** Each file's size in bytes from `git ls-tree -r -l -z --full-tree` (0 where git shows none). */
export function blobSizes(listing: string): Map<string, number> {
  const sizes = new Map<string, number>();
  for (const entry of listing.split('\0').filter(Boolean)) {
    const tab = entry.indexOf('\t');
    const size = Number(entry.slice(0, tab).trim().split(/\s+/)[3]);
    sizes.set(entry.slice(tab + 1), Number.isFinite(size) ? size : 0);
  }
  return sizes;
}

/** Lines added and removed per file, from `git diff --numstat -z --no-renames` (binary files count none). */
export function lineCountsOf(numstat: string): Map<string, { additions: number; deletions: number }> {
  const counts = new Map<string, { additions: number; deletions: number }>();
  for (const entry of numstat.split('\0').filter(Boolean)) {
    const [added = '-', removed = '-', ...path] = entry.split('\t');
    counts.set(path.join('\t'), { additions: Number(added) || 0, deletions: Number(removed) || 0 });
  }
  return counts;
}

/** Each path `git status --porcelain -z --no-renames` lists, as it is (-z: never quoted). */
export function statusPaths(porcelain: string): string[] {
  return porcelain
    .split('\0')
    .filter(Boolean)
    .map((entry) => entry.slice(3));
}

/**
 * `git push --porcelain` marks refs it refused itself (non-fast-forward, fetch first, already exists) as
 * `!` with `[rejected]`; a server-side refusal (`[remote rejected]`, e.g. a protected branch) is not a race
 * that a retry under another name or after a fetch would fix.
 */
export function isLocallyRejected(porcelain: string): boolean {
  return porcelain.split('\n').some((line) => line.startsWith('!') && line.includes('[rejected]'));
}
