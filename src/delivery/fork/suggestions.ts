// A change to a fork's pull request as review suggestions: the lines of the pull request's diff a suggestion
// may touch (GitHub takes a review comment only on a line of one hunk of the diff, its right side), and the
// agent's change cut into blocks that fit there. Pure: both diffs come in as text (`git diff` output).

/** Per file, the right-side line ranges of the pull request's hunks: where a suggestion may go. */
export type CommentableLines = ReadonlyMap<string, ReadonlyArray<readonly [number, number]>>;

/** One suggestion: replace lines `startLine`..`line` of the head's `path` with `lines`. */
export interface Suggestion {
  path: string;
  startLine: number;
  line: number;
  lines: string[];
}

/** A file's part of a unified diff: its path on the new side (undefined for a deleted file) and its hunks. */
interface FileDiff {
  path: string | undefined;
  /** The file is new or deleted, or binary: no line of it can take a suggestion. */
  whole: boolean;
  hunks: Hunk[];
}

interface Hunk {
  oldStart: number;
  newStart: number;
  newCount: number;
  lines: string[];
}

const HUNK = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/;

/** The files and hunks of `git diff` output (paths without quoting: core.quotePath is off in our git). */
function parseDiff(diff: string): FileDiff[] {
  const files: FileDiff[] = [];
  let file: FileDiff | undefined;
  let hunk: Hunk | undefined;
  for (const line of diff.split('\n')) {
    if (line.startsWith('diff --git ')) {
      file = { path: undefined, whole: false, hunks: [] };
      files.push(file);
      hunk = undefined;
    } else if (!file) {
      continue;
    } else if (!hunk && line.startsWith('+++ ')) {
      file.path = line === '+++ /dev/null' ? undefined : line.slice(6);
    } else if (!hunk && /^(new file mode|deleted file mode|Binary files|GIT binary patch)/.test(line)) {
      file.whole = true;
    } else if (HUNK.test(line)) {
      const [, oldStart, , newStart, newCount] = HUNK.exec(line)!;
      hunk = {
        oldStart: +oldStart!,
        newStart: +newStart!,
        newCount: newCount === undefined ? 1 : +newCount,
        lines: [],
      };
      file.hunks.push(hunk);
    } else if (hunk && /^[ +\-\\]/.test(line)) {
      hunk.lines.push(line);
    }
  }
  return files;
}

/** The pull request's diff (base to head) as the lines a review comment may sit on. */
export function commentableLines(pullDiff: string): CommentableLines {
  const lines = new Map<string, Array<[number, number]>>();
  for (const file of parseDiff(pullDiff)) {
    if (!file.path) continue;
    const ranges = file.hunks
      .filter((hunk) => hunk.newCount > 0)
      .map((hunk): [number, number] => [hunk.newStart, hunk.newStart + hunk.newCount - 1]);
    if (ranges.length > 0) lines.set(file.path, ranges);
  }
  return lines;
}

/**
 * The agent's change (head to its commit, `git diff` with context) as suggestions on the head's lines, and
 * the files whose change could not all be suggested (new, deleted or binary files, lines outside the pull
 * request's diff): the review's patch carries those.
 */
export function suggestionsOf(
  change: string,
  allowed: CommentableLines,
): { suggestions: Suggestion[]; leftOut: string[] } {
  const suggestions: Suggestion[] = [];
  const leftOut = new Set<string>();
  for (const file of parseDiff(change)) {
    const path = file.path;
    if (!path || file.whole) {
      leftOut.add(path ?? '(a deleted file)');
      continue;
    }
    for (const block of file.hunks.flatMap(blocksOf)) {
      const fits = (allowed.get(path) ?? []).some(
        ([from, to]) => block.startLine >= from && block.line <= to,
      );
      if (fits) suggestions.push({ path, ...block });
      else leftOut.add(path);
    }
  }
  return { suggestions, leftOut: [...leftOut] };
}

/**
 * A hunk's runs of removed and added lines, each as the head's lines it replaces and what replaces them. A
 * run that only adds lines is anchored on the line before it (or, at the top, the line after), repeated.
 */
function blocksOf(hunk: Hunk): Array<Omit<Suggestion, 'path'>> {
  const blocks: Array<Omit<Suggestion, 'path'>> = [];
  let old = hunk.oldStart;
  let before: string | undefined;
  let run: { start: number; removed: number; added: string[]; before?: string } | undefined;
  const close = (after?: string) => {
    if (!run) return;
    if (run.removed > 0) {
      blocks.push({ startLine: run.start, line: run.start + run.removed - 1, lines: run.added });
    } else if (run.before !== undefined) {
      blocks.push({ startLine: run.start - 1, line: run.start - 1, lines: [run.before, ...run.added] });
    } else if (after !== undefined) {
      blocks.push({ startLine: run.start, line: run.start, lines: [...run.added, after] });
    }
    run = undefined;
  };
  for (const line of hunk.lines) {
    const text = line.slice(1);
    if (line.startsWith('\\')) continue;
    if (line.startsWith(' ')) {
      close(text);
      before = text;
      old++;
      continue;
    }
    run ??= { start: old, removed: 0, added: [], ...(before === undefined ? {} : { before }) };
    if (line.startsWith('-')) {
      run.removed++;
      old++;
    } else {
      run.added.push(text);
    }
  }
  close();
  return blocks;
}
