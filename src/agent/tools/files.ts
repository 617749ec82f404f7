// read_file, write_file and edit_file: text files inside the workspace, never past its edges.
import { createReadStream } from 'node:fs';
import { mkdir, open, readFile, stat, writeFile } from 'node:fs/promises';
import type { Stats } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import {
  DEFAULT_OUTPUT_LIMIT,
  dropHalfPair,
  formatCount,
  type Redaction,
} from '../../sandbox/capped-output.js';
import { errorCode, resolveInWorkspace } from '../workspace.js';
import type { Tool } from './types.js';
import { ToolError } from './types.js';

/** Files up to this size are read whole; larger ones only as far as the output cap needs. */
const WHOLE_READ_BYTES = 4 * 1024 * 1024;
/** A NUL byte in this many leading bytes marks a file as binary. */
const SNIFF_BYTES = 8 * 1024;
const MAX_EDIT_BYTES = 10 * 1024 * 1024;

// ---------- shared helpers ----------

function fsFailure(action: string, shownPath: string, error: unknown): ToolError {
  if (error instanceof ToolError) return error;
  return new ToolError(`cannot ${action} ${shownPath}: ${errorCode(error)}`);
}

function binaryFile(size: number): ToolError {
  return new ToolError(`binary file (${formatCount(size)} bytes); use bash to inspect it`);
}

/** Strict UTF-8 (a BOM is kept, so a rewrite is byte-identical); null when the bytes are not text. */
function decodeUtf8(bytes: Uint8Array, endsMidFile = false): string | null {
  if (bytes.subarray(0, SNIFF_BYTES).includes(0)) return null;
  try {
    // `stream` keeps an incomplete trailing character pending instead of calling it invalid.
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes, { stream: endsMidFile });
  } catch {
    return null;
  }
}

async function statTextFile(file: string, shownPath: string): Promise<Stats> {
  let info: Stats;
  try {
    info = await stat(file);
  } catch (error) {
    throw errorCode(error) === 'ENOENT'
      ? new ToolError(`no such file: ${shownPath}`)
      : fsFailure('stat', shownPath, error);
  }
  if (info.isDirectory()) throw new ToolError(`${shownPath} is a directory; use bash (ls) to list it`);
  if (!info.isFile()) throw new ToolError(`${shownPath} is not a regular file`);
  return info;
}

function countLines(text: string): number {
  let lines = text.endsWith('\n') || text === '' ? 0 : 1;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) lines++;
  return lines;
}

// ---------- read_file ----------

/** Lines in one view unless the model asks for fewer (a long file is read in pages). */
export const LINES_PER_VIEW = 2000;
/** A longer line is shown cut, with the number of characters left out. */
const MAX_LINE_CHARS = 2000;

/**
 * `cat -n` style: the 1-based line number, right-aligned, a tab, then the line. `length` is the line's
 * whole length when `line` holds only its start (a line streamed from a huge file: the cap plus the
 * redaction's margin). A line over the cap is redacted across its cut, so no secret is kept in half.
 */
function numbered(lineNumber: number, line: string, length = line.length, redaction?: Redaction): string {
  let shown = line.endsWith('\r') ? line.slice(0, -1) : line;
  if (length > MAX_LINE_CHARS) {
    const cut = dropHalfPair(shown.slice(0, MAX_LINE_CHARS), 'end').length;
    const kept = redaction?.redactSlice(shown, 0, cut) ?? { text: shown.slice(0, cut), end: cut };
    shown = `${kept.text}… [line cut: ${formatCount(length - kept.end)} more characters]`;
  }
  return `${String(lineNumber).padStart(6)}\t${shown}`;
}

interface Window {
  offset: number;
  limit: number;
  redaction?: Redaction | undefined;
}

interface View {
  text: string;
  /** Line number of the last line shown. */
  last: number;
  /** Lines after `last` were left out (the limit or the character cap). */
  more: boolean;
}

/** Numbered lines, the first being line `first`: at most `limit` of them, never past the character cap. */
function view(lines: readonly string[], first: number, window: Window, lengths?: readonly number[]): View {
  const shown: string[] = [];
  let chars = 0;
  for (const [index, line] of lines.entries()) {
    const row = numbered(first + index, line, lengths?.[index], window.redaction);
    if (shown.length === window.limit || (shown.length > 0 && chars + row.length + 1 > DEFAULT_OUTPUT_LIMIT))
      break;
    shown.push(row);
    chars += row.length + 1;
  }
  return { text: shown.join('\n'), last: first + shown.length - 1, more: shown.length < lines.length };
}

/** The lines of a text, without the empty "line" after a final newline. */
function splitLines(text: string): string[] {
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  return lines;
}

function pastTheEnd(shownPath: string, offset: number, total: number): ToolError {
  return new ToolError(
    `offset ${offset} is past the end of ${shownPath}, which has ${formatCount(total)} lines`,
  );
}

/** A text read whole: the view, and a note with the line count and where to read on when it is partial. */
function showText(text: string, shownPath: string, window: Window): string {
  const lines = splitLines(text);
  if (window.offset > lines.length) throw pastTheEnd(shownPath, window.offset, lines.length);
  const { text: body, last, more } = view(lines.slice(window.offset - 1), window.offset, window);
  const notes: string[] = [];
  if (window.offset > 1 || more) {
    notes.push(`lines ${window.offset}-${last} of ${formatCount(lines.length)} in ${shownPath}`);
    if (more) notes.push(`read on with offset=${last + 1}`);
  }
  if (text.includes('\r\n')) notes.push('the file uses CRLF line endings (not shown)');
  return notes.length > 0 ? `${body}\n[${notes.join('; ')}]` : body;
}

/** A file's lines, streamed: each line's start (up to just over the line cap) and its whole length. */
async function* streamLines(file: string, margin: number): AsyncGenerator<{ start: string; length: number }> {
  const stream = createReadStream(file, { encoding: 'utf8', highWaterMark: 64 * 1024 });
  const keep = MAX_LINE_CHARS + margin + 1;
  let start = '';
  let length = 0;
  const add = (piece: string) => {
    if (start.length < keep) start += piece.slice(0, keep - start.length);
    length += piece.length;
  };
  try {
    for await (const chunk of stream as AsyncIterable<string>) {
      let from = 0;
      for (let newline = chunk.indexOf('\n'); newline !== -1; newline = chunk.indexOf('\n', from)) {
        add(chunk.slice(from, newline));
        yield { start, length };
        start = '';
        length = 0;
        from = newline + 1;
      }
      add(chunk.slice(from));
    }
    if (length > 0) yield { start, length };
  } finally {
    stream.destroy();
  }
}

/** A file too large to read whole: its lines are streamed up to the end of the view, never counted. */
async function showLargeFile(file: string, size: number, shownPath: string, window: Window): Promise<string> {
  const handle = await open(file, 'r');
  try {
    const sniff = Buffer.alloc(SNIFF_BYTES);
    const { bytesRead } = await handle.read(sniff, 0, sniff.length, 0);
    if (decodeUtf8(sniff.subarray(0, bytesRead), true) === null) throw binaryFile(size);
  } finally {
    await handle.close();
  }
  const collected: string[] = [];
  const lengths: number[] = [];
  let lineNumber = 0;
  // Only the lines of the view are kept, each at most a little over the line cap; earlier ones are counted.
  for await (const line of streamLines(file, window.redaction?.margin ?? 0)) {
    lineNumber++;
    if (lineNumber >= window.offset) {
      collected.push(line.start);
      lengths.push(line.length);
    }
    if (collected.length > window.limit) break;
  }
  if (collected.length === 0) throw pastTheEnd(shownPath, window.offset, lineNumber);
  const { text, last, more } = view(collected, window.offset, window, lengths);
  const note = more
    ? `lines ${window.offset}-${last} of ${shownPath} (${formatCount(size)} bytes, too large to count its ` +
      `lines); read on with offset=${last + 1}`
    : `lines ${window.offset}-${last} of ${formatCount(last)} in ${shownPath}`;
  return `${text}\n[${note}]`;
}

const readFileInput = z.object({
  path: z
    .string()
    .describe('File path relative to the repository root (an absolute path must lie inside it)'),
  offset: z.number().int().positive().optional().describe('Line number to start at (1-based; default 1)'),
  limit: z
    .number()
    .int()
    .positive()
    .optional()
    .describe(`How many lines to show (default and most: ${LINES_PER_VIEW})`),
});

export const readFileTool: Tool<typeof readFileInput> = {
  name: 'read_file',
  description:
    'Read a UTF-8 text file in the repository. Lines come numbered like `cat -n` (number, tab, line); ' +
    'the numbers are not part of the file, so leave them out of edit_file text. One call shows up to ' +
    `${LINES_PER_VIEW} lines and about 50,000 characters; a longer file ends with a note giving its line ` +
    'count and the offset to read on from. Pass offset and limit to read one part (for "error at line ' +
    '1234", offset 1200 and limit 80). Lines over 2,000 characters are cut. Binary files and directories ' +
    'are refused: use bash for those. Read several files at once by making several calls in one reply.',
  inputSchema: readFileInput,
  async run(input, context) {
    const file = await resolveInWorkspace(context.workspace, input.path, {
      hidden: context.hidden ?? [],
      mustExist: true,
    });
    const info = await statTextFile(file, input.path);
    if (info.size === 0) return `(${input.path} is empty)`;
    const window = {
      offset: input.offset ?? 1,
      limit: Math.min(input.limit ?? LINES_PER_VIEW, LINES_PER_VIEW),
      redaction: context.redaction,
    };
    try {
      if (info.size > WHOLE_READ_BYTES) return await showLargeFile(file, info.size, input.path, window);
      const text = decodeUtf8(await readFile(file));
      if (text === null) throw binaryFile(info.size);
      return showText(text, input.path, window);
    } catch (error) {
      throw fsFailure('read', input.path, error);
    }
  },
};

// ---------- write_file ----------

const writeFileInput = z.object({
  path: z.string().describe('File path relative to the repository root; missing folders are created'),
  content: z.string().describe('The complete new content of the file'),
});

export const writeFileTool: Tool<typeof writeFileInput> = {
  name: 'write_file',
  description:
    'Create a file, or replace the whole content of an existing one, creating parent folders as needed. ' +
    'For a small change to an existing file prefer edit_file. Files inside .git cannot be written.',
  inputSchema: writeFileInput,
  async run(input, context) {
    const file = await resolveInWorkspace(context.workspace, input.path, {
      hidden: context.hidden ?? [],
      forWrite: true,
    });
    try {
      await mkdir(path.dirname(file), { recursive: true });
      await writeFile(file, input.content, 'utf8');
    } catch (error) {
      if (errorCode(error) === 'EISDIR') throw new ToolError(`${input.path} is a directory`);
      throw fsFailure('write', input.path, error);
    }
    return `wrote ${Buffer.byteLength(input.content, 'utf8')} bytes to ${input.path}`;
  },
};

// ---------- edit_file ----------

/** How many match lines an "old_text matches K times" error lists. */
const LISTED_MATCHES = 10;
/** How many near-miss lines a "not found" error offers, and how alike they must be (0..1). */
const CANDIDATES = 3;
const MIN_LIKENESS = 0.5;
const MAX_EDITS = 50;

/** Start of every occurrence, overlapping ones included (either would be an ambiguous target). */
function findAll(text: string, needle: string): number[] {
  const found: number[] = [];
  for (let i = text.indexOf(needle); i !== -1; i = text.indexOf(needle, i + 1)) found.push(i);
  return found;
}

const lineAt = (text: string, index: number): number => countLines(text.slice(0, index + 1));

/** Dice coefficient of the two strings' character pairs: 1 for equal, 0 for nothing in common. */
function likeness(a: string, b: string): number {
  if (a === b) return 1;
  if (a.length < 2 || b.length < 2) return 0;
  const pairs = new Map<string, number>();
  for (let i = 0; i < a.length - 1; i++) {
    const pair = a.slice(i, i + 2);
    pairs.set(pair, (pairs.get(pair) ?? 0) + 1);
  }
  let shared = 0;
  for (let i = 0; i < b.length - 1; i++) {
    const pair = b.slice(i, i + 2);
    const left = pairs.get(pair) ?? 0;
    if (left > 0) {
      shared++;
      pairs.set(pair, left - 1);
    }
  }
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
  return splitLines(text)
    .map((line, index) => ({ line: line.trim(), number: index + 1 }))
    .filter(({ line }) => line !== '')
    .map((entry) => ({ ...entry, score: likeness(probe, entry.line) }))
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
function applyEdit(text: string, edit: Edit, shownPath: string): { text: string; report: string } {
  if (edit.old_text === '') {
    throw new ToolError('old_text is empty; give the exact text to replace (use write_file for a new file)');
  }
  if (edit.old_text === edit.new_text)
    throw new ToolError('old_text and new_text are identical; nothing to change');
  const matches = findAll(text, edit.old_text);
  if (matches.length === 0) throw new ToolError(notFound(text, edit.old_text, shownPath));
  const lines = matches.slice(0, LISTED_MATCHES).map((i) => lineAt(text, i));
  const listed = `line${lines.length > 1 ? 's' : ''} ${lines.join(', ')}${matches.length > LISTED_MATCHES ? ', ...' : ''}`;
  if (matches.length > 1 && !edit.replace_all) {
    throw new ToolError(
      `old_text matches ${matches.length} times in ${shownPath} (${listed}); include more surrounding ` +
        'text so it matches once, or pass replace_all: true to replace every occurrence',
    );
  }
  if (edit.replace_all) {
    // Counted without overlaps, as split/join replaces them.
    const count = text.split(edit.old_text).length - 1;
    return {
      text: text.split(edit.old_text).join(edit.new_text),
      report: `replaced ${count} occurrence${count === 1 ? '' : 's'} (${listed})`,
    };
  }
  const at = matches[0]!;
  return {
    text: text.slice(0, at) + edit.new_text + text.slice(at + edit.old_text.length),
    report:
      `replaced ${countLines(edit.old_text)} line(s) at line ${lineAt(text, at)} ` +
      `with ${countLines(edit.new_text)} line(s)`,
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
    const file = await resolveInWorkspace(context.workspace, input.path, {
      hidden: context.hidden ?? [],
      mustExist: true,
      forWrite: true,
    });
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

    const reports: string[] = [];
    for (const [index, edit] of edits.entries()) {
      try {
        const applied = applyEdit(text, edit, input.path);
        text = applied.text;
        reports.push(applied.report);
      } catch (error) {
        if (edits.length === 1 || !(error instanceof ToolError)) throw error;
        throw new ToolError(`edit ${index + 1} of ${edits.length} (nothing was written): ${error.message}`);
      }
    }
    try {
      await writeFile(file, text, 'utf8');
    } catch (error) {
      throw fsFailure('write', input.path, error);
    }
    if (reports.length === 1) return `edited ${input.path}: ${reports[0]}`;
    return `edited ${input.path} (${reports.length} edits):\n${reports.map((r, i) => `${i + 1}. ${r}`).join('\n')}`;
  },
};
