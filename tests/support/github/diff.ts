// The files a pull request changes, as GitHub lists them: `git diff base...head` in the emulator's origin.
import { originGit } from './origin-git.js';

export interface DiffFile {
  filename: string;
  status: 'added' | 'removed' | 'modified' | 'changed';
  /** The blob after the change (before it, for a removed file). */
  sha: string;
  additions: number;
  deletions: number;
}

/** Paths as they are (no C-style quoting of non-ASCII names), each line whole to its end. */
const AS_WRITTEN = { config: ['core.quotePath=false'], untrimmed: true };

const STATUS: Record<string, DiffFile['status']> = { A: 'added', D: 'removed', M: 'modified', T: 'changed' };

/** Files changed on `head` since it left `base` (three dots, as a pull request's Files tab). */
export async function diffFiles(gitDir: string, base: string, head: string): Promise<DiffFile[]> {
  const range = `refs/heads/${base}...refs/heads/${head}`;
  const [raw, numstat] = await Promise.all([
    originGit(gitDir, ['diff', '--raw', '--no-abbrev', '--no-renames', range], AS_WRITTEN),
    originGit(gitDir, ['diff', '--numstat', '--no-renames', range], AS_WRITTEN),
  ]);
  const counts = new Map<string, [number, number]>();
  for (const line of numstat.split('\n').filter(Boolean)) {
    const [added = '-', removed = '-', ...path] = line.split('\t');
    // Binary files count no lines.
    counts.set(path.join('\t'), [Number(added) || 0, Number(removed) || 0]);
  }
  return raw
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [meta = '', ...path] = line.split('\t');
      const [, , oldSha = '', newSha = '', letter = 'M'] = meta.split(' ');
      const filename = path.join('\t');
      const [additions, deletions] = counts.get(filename) ?? [0, 0];
      const status = STATUS[letter[0] ?? 'M'] ?? 'modified';
      return { filename, status, sha: status === 'removed' ? oldSha : newSha, additions, deletions };
    });
}
