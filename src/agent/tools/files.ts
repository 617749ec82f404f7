// read_file, write_file and edit_file: text files inside the workspace, never past its edges.
import { mkdir, open, readFile, stat, writeFile } from 'node:fs/promises';
import type { Stats } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { capText, DEFAULT_OUTPUT_LIMIT, dropHalfPair, formatCount, splitLimit } from '../capped-output.js';
import { errorCode, resolveInWorkspace } from '../workspace.js';
import type { Tool } from './types.js';
import { ToolError } from './types.js';

/** Files up to this size are read whole; larger ones only as far as the output cap needs. */
const WHOLE_READ_BYTES = 4 * 1024 * 1024;
/** A NUL byte in this many leading bytes marks a file as binary. */
const SNIFF_BYTES = 8 * 1024;
/** A character is at most 4 UTF-8 bytes, so this many bytes per kept character always suffice. */
const BYTES_PER_CHAR = 4;
const MAX_EDIT_BYTES = 10 * 1024 * 1024;
/** How many match lines an "old_text matches K times" error lists. */
const LISTED_MATCHES = 10;

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

/** The text up to and including the `count`-th newline, or null if it has no more lines than that. */
function firstLines(text: string, count: number): string | null {
  let end = -1;
  for (let n = 0; n < count; n++) {
    end = text.indexOf('\n', end + 1);
    if (end === -1) return null;
  }
  return end + 1 < text.length ? text.slice(0, end + 1) : null;
}

const withNote = (text: string, note: string): string => `${text}${text.endsWith('\n') ? '' : '\n'}[${note}]`;

// ---------- read_file ----------

function showWhole(text: string, shownPath: string, limit: number | undefined): string {
  const totalLines = countLines(text);
  if (limit !== undefined) {
    const shown = firstLines(text, limit);
    if (shown !== null) {
      return withNote(
        capText(shown),
        `showing lines 1-${limit} of ${totalLines}; ${totalLines - limit} more lines. ` +
          `Read with a larger limit, or use bash (sed -n '${limit + 1},${limit + 200}p') for the rest`,
      );
    }
  }
  if (text.length <= DEFAULT_OUTPUT_LIMIT) return text;
  return withNote(
    capText(text),
    `${shownPath} has ${formatCount(text.length)} characters in ${totalLines} lines and was cut in the ` +
      `middle; use read_file with limit, or bash (grep -n, sed -n 'a,bp') to see other parts`,
  );
}

/** A file too big to read whole: only its first and last few hundred KB are read. */
async function showEnds(file: string, size: number, limit: number | undefined): Promise<string> {
  const keep = splitLimit(DEFAULT_OUTPUT_LIMIT);
  const handle = await open(file, 'r');
  try {
    const headBytes = Buffer.alloc(keep.head * BYTES_PER_CHAR);
    const { bytesRead: headRead } = await handle.read(headBytes, 0, headBytes.length, 0);
    const headText = decodeUtf8(headBytes.subarray(0, headRead), true);
    if (headText === null) throw binaryFile(size);

    const unreadNote =
      `the file is ${formatCount(size)} bytes, too large to count its lines; ` +
      `use bash (wc -l, sed -n 'a,bp', grep -n) to see more`;
    if (limit !== undefined) {
      const shown = firstLines(headText, limit) ?? headText;
      return withNote(
        capText(shown),
        `showing at most the first ${limit} lines; more lines follow: ${unreadNote}`,
      );
    }

    const tailBytes = Buffer.alloc(keep.tail * BYTES_PER_CHAR);
    const tailStart = size - tailBytes.length;
    const { bytesRead: tailRead } = await handle.read(tailBytes, 0, tailBytes.length, tailStart);
    let from = 0;
    while (from < 3 && from < tailRead && (tailBytes[from]! & 0xc0) === 0x80) from++; // mid-character start
    const tailText = decodeUtf8(tailBytes.subarray(from, tailRead));
    if (tailText === null) throw binaryFile(size);

    const head = dropHalfPair(headText.slice(0, keep.head), 'end');
    const tail = dropHalfPair(tailText.slice(-keep.tail), 'start');
    const cut = size - Buffer.byteLength(head) - Buffer.byteLength(tail);
    return withNote(
      `${head}\n... [${formatCount(cut)} bytes cut: showing the first ${formatCount(head.length)} and the ` +
        `last ${formatCount(tail.length)} characters] ...\n${tail}`,
      unreadNote,
    );
  } finally {
    await handle.close();
  }
}

const readFileInput = z.object({
  path: z
    .string()
    .describe('File path relative to the repository root (an absolute path must lie inside it)'),
  limit: z
    .number()
    .int()
    .positive()
    .optional()
    .describe('Read at most this many lines from the start of the file (default: the whole file, capped)'),
});

export const readFileTool: Tool<typeof readFileInput> = {
  name: 'read_file',
  description:
    'Read a UTF-8 text file in the repository and return its content exactly. Very long files are cut ' +
    'to their first and last parts (about 50,000 characters in all) with a marker; pass limit to read ' +
    'only the first lines. Binary files and directories are refused: use bash for those.',
  inputSchema: readFileInput,
  async run(input, context) {
    const file = await resolveInWorkspace(context.workspace, input.path, { mustExist: true });
    const info = await statTextFile(file, input.path);
    if (info.size === 0) return `(${input.path} is empty)`;
    try {
      if (info.size > WHOLE_READ_BYTES) return await showEnds(file, info.size, input.limit);
      const text = decodeUtf8(await readFile(file));
      if (text === null) throw binaryFile(info.size);
      return showWhole(text, input.path, input.limit);
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
    const file = await resolveInWorkspace(context.workspace, input.path, { forWrite: true });
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

/** Start of every occurrence, overlapping ones included (either would be an ambiguous target). */
function findAll(text: string, needle: string): number[] {
  const found: number[] = [];
  for (let i = text.indexOf(needle); i !== -1; i = text.indexOf(needle, i + 1)) found.push(i);
  return found;
}

const lineAt = (text: string, index: number): number => countLines(text.slice(0, index + 1));

function notFound(text: string, oldText: string, shownPath: string): ToolError {
  const base = `old_text not found in ${shownPath}`;
  const trimmed = oldText.trim();
  if (trimmed !== '' && trimmed !== oldText && text.includes(trimmed)) {
    return new ToolError(
      `${base}; it would match without its leading/trailing whitespace, so check indentation and blank lines`,
    );
  }
  if (text.includes('\r\n') && !oldText.includes('\r') && text.includes(oldText.replaceAll('\n', '\r\n'))) {
    return new ToolError(`${base}; the file uses CRLF line endings, so old_text needs \\r\\n too`);
  }
  return new ToolError(`${base}; read the file again and copy the text exactly, whitespace included`);
}

const editFileInput = z.object({
  path: z.string().describe('File path relative to the repository root'),
  old_text: z
    .string()
    .describe('Exact text to replace, whitespace included; it must occur exactly once in the file'),
  new_text: z.string().describe('Text to put in its place (empty to delete it)'),
});

export const editFileTool: Tool<typeof editFileInput> = {
  name: 'edit_file',
  description:
    'Replace one exact occurrence of old_text with new_text in an existing file; the rest of the file ' +
    'is left byte-for-byte unchanged. old_text must match exactly once: include enough surrounding ' +
    'lines to make it unique. Read the file first so old_text is copied exactly.',
  inputSchema: editFileInput,
  async run(input, context) {
    if (input.old_text === '') {
      throw new ToolError(
        'old_text is empty; give the exact text to replace (use write_file for a new file)',
      );
    }
    if (input.old_text === input.new_text)
      throw new ToolError('old_text and new_text are identical; nothing to change');
    const file = await resolveInWorkspace(context.workspace, input.path, { mustExist: true, forWrite: true });
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

    const matches = findAll(text, input.old_text);
    if (matches.length === 0) throw notFound(text, input.old_text, input.path);
    if (matches.length > 1) {
      const lines = matches.slice(0, LISTED_MATCHES).map((i) => lineAt(text, i));
      const more = matches.length > LISTED_MATCHES ? ', ...' : '';
      throw new ToolError(
        `old_text matches ${matches.length} times in ${input.path} (lines ${lines.join(', ')}${more}); ` +
          'include more surrounding text so it matches once',
      );
    }
    const at = matches[0]!;
    const updated = text.slice(0, at) + input.new_text + text.slice(at + input.old_text.length);
    try {
      await writeFile(file, updated, 'utf8');
    } catch (error) {
      throw fsFailure('write', input.path, error);
    }
    return (
      `edited ${input.path}: replaced ${countLines(input.old_text)} line(s) at line ${lineAt(text, at)} ` +
      `with ${countLines(input.new_text)} line(s)`
    );
  },
};
