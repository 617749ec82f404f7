// What git says of two trees, read: `diff-tree --raw -z` as one change a file, `ls-tree -l -z` as each blob's
// size. Pure parsing; repo.ts runs the commands.

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
