// read_file: a text file in the workspace, numbered like `cat -n`, in pages; a huge one streamed.
import { createReadStream } from 'node:fs';
import { open, readFile } from 'node:fs/promises';
import { z } from 'zod';
import {
  DEFAULT_OUTPUT_LIMIT,
  dropHalfPair,
  formatCount,
  type Redaction,
} from '../../sandbox/commands/capped-output.js';
import { toolFile } from '../workspace.js';
import { binaryFile, decodeUtf8, fsFailure, SNIFF_BYTES, splitLines, statTextFile } from './text-file.js';
import type { Tool } from './types.js';
import { ToolError } from './types.js';

/** Files up to this size are read whole; larger ones only as far as the output cap needs. */
const WHOLE_READ_BYTES = 4 * 1024 * 1024;

/** Lines in one view unless the model asks for fewer (a long file is read in pages). */
export const LINES_PER_VIEW = 2000;
/** A longer line is shown cut, with the number of characters left out. */
const MAX_LINE_CHARS = 2000;

/**
 * `cat -n` style: the 1-based line number, right-aligned, a tab, then the line. `length` is the line's
 * whole length when `line` holds only its start (a line streamed from a huge file: the cap plus the
 * redaction's margin). A line over the cap is redacted across its cut, so no secret is kept in half.
 */
export function numbered(
  lineNumber: number,
  line: string,
  length = line.length,
  redaction?: Redaction,
): string {
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
    const file = await toolFile(context, input.path, { mustExist: true });
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
