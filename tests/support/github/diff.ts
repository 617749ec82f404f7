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

/** The ref a pull request's head is in the origin: its branch, or for a fork's, `refs/pull/N/head`. */
export function headRef(pull: { number: number; head: string; fork?: unknown }): string {
  return pull.fork ? `refs/pull/${pull.number}/head` : `refs/heads/${pull.head}`;
}

/** Files changed on `head` (a ref) since it left `base` (three dots, as a pull request's Files tab). */
export async function diffFiles(gitDir: string, base: string, head: string): Promise<DiffFile[]> {
  const range = `refs/heads/${base}...${head}`;
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

/** A hunk of a pull request's diff: the head's lines it shows (right side), and its text from the `@@` line. */
export interface DiffHunk {
  from: number;
  to: number;
  text: string;
}

/** The hunks of a pull request's diff per file (three lines of context, as GitHub shows it). */
export async function diffHunks(
  gitDir: string,
  base: string,
  head: string,
): Promise<Map<string, DiffHunk[]>> {
  const diff = await originGit(
    gitDir,
    ['diff', '-U3', '--no-renames', `refs/heads/${base}...${head}`],
    AS_WRITTEN,
  );
  const hunks = new Map<string, DiffHunk[]>();
  let path: string | undefined;
  let hunk: DiffHunk | undefined;
  for (const line of diff.split('\n')) {
    if (line.startsWith('+++ ')) {
      path = line === '+++ /dev/null' ? undefined : line.slice(6);
      hunk = undefined;
      continue;
    }
    const header = /^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@/.exec(line);
    if (header && path) {
      const from = Number(header[1]);
      hunk = { from, to: from + Number(header[2] ?? 1) - 1, text: line };
      hunks.set(path, [...(hunks.get(path) ?? []), hunk]);
    } else if (hunk && /^[ +\-\\]/.test(line)) {
      hunk.text += `\n${line}`;
    }
  }
  return hunks;
}
