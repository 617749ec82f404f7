// edit_file: exact text replaced in a file of the workspace; a miss names the nearest lines.
import { readFile, writeFile } from 'node:fs/promises';
import { z } from 'zod';
import { formatCount } from '../../sandbox/commands/capped-output.js';
import { toolFile } from '../workspace.js';
import {
  binaryFile,
  countLines,
  decodeUtf8,
  fsFailure,
  MAX_EDIT_BYTES,
  splitLines,
  statTextFile,
} from './text-file.js';
import type { Tool } from './types.js';
import { ToolError } from './types.js';
import { carrySpans, showChanges, type CharSpan, type Replacement } from './changed-region.js';
import { writeAndCheck } from './syntax/check.js';

/** How many match lines an "old_text matches K times" error lists. */
const LISTED_MATCHES = 10;
/** How many near-miss lines a "not found" error offers, and how alike they must be (0..1). */
const CANDIDATES = 3;
const MIN_LIKENESS = 0.5;
const MAX_EDITS = 50;
/** The most occurrences one replace_all replaces. Ours: a rename touches far fewer; a wider sweep is bash's. */
const MAX_REPLACEMENTS = 10_000;

/**
 * Where `needle` starts, overlapping occurrences included (either would be an ambiguous target): the first
 * `limit` of them. Not every one: a search from each match on costs the file's length times old_text's (a
 * megabyte of one letter and 100 KB of the same took minutes).
 */
function firstMatches(text: string, needle: string, limit: number): number[] {
  const found: number[] = [];
  for (let i = text.indexOf(needle); i !== -1 && found.length < limit; i = text.indexOf(needle, i + 1))
    found.push(i);
  return found;
}

/** Occurrences that do not overlap, as replace_all replaces them, counted in one pass up to `limit`. */
function countApart(text: string, needle: string, limit = Infinity): number {
  let count = 0;
  for (let i = text.indexOf(needle); i !== -1 && count < limit; i = text.indexOf(needle, i + needle.length))
    count++;
  return count;
}

const lineAt = (text: string, index: number): number => countLines(text.slice(0, index + 1));

/** The characters of a line a near miss is judged by: a hint needs no more, and no line costs more. */
const LIKENESS_CHARS = 200;

/** Character pairs of `text`'s first LIKENESS_CHARS, counted (a pair as one number: two UTF-16 units). */
function pairCounts(text: string): Map<number, number> {
  const pairs = new Map<number, number>();
  const end = Math.min(text.length, LIKENESS_CHARS) - 1;
  for (let i = 0; i < end; i++) {
    const pair = text.charCodeAt(i) * 0x10000 + text.charCodeAt(i + 1);
    pairs.set(pair, (pairs.get(pair) ?? 0) + 1);
  }
  return pairs;
}

/** Dice coefficient of two texts' character pairs (their first LIKENESS_CHARS): 1 for equal, 0 for nothing shared. */
function likeness(probe: string, probePairs: Map<number, number>, line: string): number {
  const a = probe.slice(0, LIKENESS_CHARS);
  const b = line.slice(0, LIKENESS_CHARS);
  if (a === b) return 1;
  // Dice can reach MIN_LIKENESS only when the shorter is at least a third of the longer: skip the rest.
  if (a.length < 2 || b.length < 2 || 3 * Math.min(a.length, b.length) < Math.max(a.length, b.length))
    return 0;
  let shared = 0;
  for (const [pair, count] of pairCounts(b)) shared += Math.min(count, probePairs.get(pair) ?? 0);
  return (2 * shared) / (a.length + b.length - 2);
}

/** The file's lines most like old_text's first non-blank line, best first, as "line N: text". */
function nearestLines(text: string, oldText: string): string[] {
  const probe =
    oldText
      .split('\n')
      .find((line) => line.trim() !== '')
      ?.trim() ?? '';
  if (probe === '') return [];
  const probePairs = pairCounts(probe);
  return splitLines(text)
    .map((line, index) => ({ line: line.trim(), number: index + 1 }))
    .filter(({ line }) => line !== '')
    .map((entry) => ({ ...entry, score: likeness(probe, probePairs, entry.line) }))
    .filter(({ score }) => score >= MIN_LIKENESS)
    .sort((a, b) => b.score - a.score || a.number - b.number)
    .slice(0, CANDIDATES)
    .map(({ line, number }) => `line ${number}: ${line.length > 200 ? `${line.slice(0, 200)}…` : line}`);
}

function notFound(text: string, oldText: string, shownPath: string): string {
  const base = `old_text not found in ${shownPath}`;
  const trimmed = oldText.trim();
  if (trimmed !== '' && trimmed !== oldText && text.includes(trimmed)) {
    return `${base}; it would match without its leading/trailing whitespace, so check indentation and blank lines`;
  }
  if (text.includes('\r\n') && !oldText.includes('\r') && text.includes(oldText.replaceAll('\n', '\r\n'))) {
    return `${base}; the file uses CRLF line endings, so old_text needs \\r\\n too`;
  }
  if (/^ *\d+\t/m.test(oldText)) {
    return `${base}; it seems to include read_file's line numbers, which are not part of the file`;
  }
  const near = nearestLines(text, oldText);
  const hint = near.length > 0 ? `; the nearest lines are:\n${near.join('\n')}\n` : '; ';
  return `${base}${hint}read the file again and copy the text exactly, whitespace included`;
}

interface Edit {
  old_text: string;
  new_text: string;
  replace_all?: boolean | undefined;
}

/** Applies one edit to the text in memory; a problem is a sentence, and the text is left as it was. */
function applyEdit(
  text: string,
  edit: Edit,
  shownPath: string,
): { text: string; report: string; replacements: Replacement[] } {
  if (edit.old_text === '') {
    throw new ToolError('old_text is empty; give the exact text to replace (use write_file for a new file)');
  }
  if (edit.old_text === edit.new_text)
    throw new ToolError('old_text and new_text are identical; nothing to change');
  const matches = firstMatches(text, edit.old_text, LISTED_MATCHES + 1);
  if (matches.length === 0) throw new ToolError(notFound(text, edit.old_text, shownPath));
  const total = matches.length > LISTED_MATCHES ? countApart(text, edit.old_text) : matches.length;
  const lines = matches.slice(0, LISTED_MATCHES).map((i) => lineAt(text, i));
  const listed = `line${lines.length > 1 ? 's' : ''} ${lines.join(', ')}${matches.length > LISTED_MATCHES ? ', ...' : ''}`;
  if (matches.length > 1 && !edit.replace_all) {
    const times = matches.length > LISTED_MATCHES ? `at least ${Math.max(total, matches.length)}` : total;
    throw new ToolError(
      `old_text matches ${times} times in ${shownPath} (${listed}); include more surrounding ` +
        'text so it matches once, or pass replace_all: true to replace every occurrence',
    );
  }
  if (edit.replace_all) {
    if (countApart(text, edit.old_text, MAX_REPLACEMENTS + 1) > MAX_REPLACEMENTS)
      throw new ToolError(
        `old_text matches over ${formatCount(MAX_REPLACEMENTS)} times in ${shownPath}, more than replace_all ` +
          'replaces; make a change that wide with bash (sed), or match fewer places',
      );
    // Counted without overlaps, as split/join replaces them.
    const pieces = text.split(edit.old_text);
    const count = pieces.length - 1;
    const replacements: Replacement[] = [];
    let at = 0;
    for (const piece of pieces.slice(0, -1)) {
      at += piece.length;
      replacements.push({ at, length: edit.old_text.length, inserted: edit.new_text.length });
      at += edit.old_text.length;
    }
    return {
      text: pieces.join(edit.new_text),
      report: `replaced ${count} occurrence${count === 1 ? '' : 's'} (${listed})`,
      replacements,
    };
  }
  const at = matches[0]!;
  return {
    text: text.slice(0, at) + edit.new_text + text.slice(at + edit.old_text.length),
    report:
      `replaced ${countLines(edit.old_text)} line(s) at line ${lineAt(text, at)} ` +
      `with ${countLines(edit.new_text)} line(s)`,
    replacements: [{ at, length: edit.old_text.length, inserted: edit.new_text.length }],
  };
}

const oneEdit = {
  old_text: z.string().describe('Exact text to replace, whitespace included, without line numbers'),
  new_text: z.string().describe('Text to put in its place (empty to delete it)'),
  replace_all: z
    .boolean()
    .optional()
    .describe('Replace every occurrence (a rename) instead of requiring exactly one (default false)'),
};

const editFileInput = z.object({
  path: z.string().describe('File path relative to the repository root'),
  old_text: oneEdit.old_text.optional(),
  new_text: oneEdit.new_text.optional(),
  replace_all: oneEdit.replace_all,
  edits: z
    .array(z.object(oneEdit))
    .min(1)
    .max(MAX_EDITS)
    .optional()
    .describe('Several edits to this file, applied in order, all or none; instead of old_text/new_text'),
});

/** The edits a call asks for: either the single old_text/new_text pair or the edits list. */
function editsOf(input: z.infer<typeof editFileInput>): Edit[] {
  const single = input.old_text !== undefined || input.new_text !== undefined;
  if (input.edits && single) throw new ToolError('give either old_text/new_text or edits, not both');
  if (input.edits) return input.edits;
  if (input.old_text === undefined || input.new_text === undefined) {
    throw new ToolError('old_text and new_text are required (or an edits list)');
  }
  return [{ old_text: input.old_text, new_text: input.new_text, replace_all: input.replace_all }];
}

export const editFileTool: Tool<typeof editFileInput> = {
  name: 'edit_file',
  description:
    'Replace exact text in an existing file; the rest of the file is left byte-for-byte unchanged. ' +
    'old_text must match exactly once (include enough surrounding lines to make it unique), unless ' +
    'replace_all is true, which replaces every occurrence (renaming a variable). For several changes to ' +
    'one file, pass edits: [{old_text, new_text, replace_all?}, ...], applied in order; if any fails, ' +
    'none is written. Copy old_text from read_file output without its line-number prefix. A miss names ' +
    'the nearest lines; a text matching several times lists their line numbers.',
  inputSchema: editFileInput,
  async run(input, context) {
    const edits = editsOf(input);
    const file = await toolFile(context, input.path, { mustExist: true, forWrite: true });
    const info = await statTextFile(file, input.path);
    if (info.size > MAX_EDIT_BYTES) {
      throw new ToolError(`${input.path} is ${formatCount(info.size)} bytes, too large to edit; use bash`);
    }
    let text: string | null;
    try {
      text = decodeUtf8(await readFile(file));
    } catch (error) {
      throw fsFailure('read', input.path, error);
    }
    if (text === null) throw binaryFile(info.size);

    const before = text;
    const reports: string[] = [];
    let spans: CharSpan[] = [];
    for (const [index, edit] of edits.entries()) {
      try {
        const applied = applyEdit(text, edit, input.path);
        text = applied.text;
        reports.push(applied.report);
        spans = carrySpans(spans, applied.replacements);
      } catch (error) {
        if (edits.length === 1 || !(error instanceof ToolError)) throw error;
        throw new ToolError(`edit ${index + 1} of ${edits.length} (nothing was written): ${error.message}`);
      }
    }
    const after = text;
    const write = async () => {
      try {
        await writeFile(file, after, 'utf8');
      } catch (error) {
        throw fsFailure('write', input.path, error);
      }
    };
    const syntax = await writeAndCheck(write, { file, shownPath: input.path, before, after }, context);
    const summary =
      reports.length === 1
        ? `edited ${input.path}: ${reports[0]}`
        : `edited ${input.path} (${reports.length} edits):\n${reports.map((r, i) => `${i + 1}. ${r}`).join('\n')}`;
    return [summary, showChanges(after, spans, input.path), syntax].filter(Boolean).join('\n');
  },
};
