// What the file tools share: one text file in the workspace, stat-ed, decoded as strict UTF-8, its failures named.
import { stat } from 'node:fs/promises';
import type { Stats } from 'node:fs';
import { formatCount } from '../../sandbox/commands/capped-output.js';
import { errorCode } from '../workspace.js';
import { ToolError } from './types.js';

/** A NUL byte in this many leading bytes marks a file as binary. */
export const SNIFF_BYTES = 8 * 1024;

export function fsFailure(action: string, shownPath: string, error: unknown): ToolError {
  if (error instanceof ToolError) return error;
  return new ToolError(`cannot ${action} ${shownPath}: ${errorCode(error)}`);
}

export function binaryFile(size: number): ToolError {
  return new ToolError(`binary file (${formatCount(size)} bytes); use bash to inspect it`);
}

/** Strict UTF-8 (a BOM is kept, so a rewrite is byte-identical); null when the bytes are not text. */
export function decodeUtf8(bytes: Uint8Array, endsMidFile = false): string | null {
  if (bytes.subarray(0, SNIFF_BYTES).includes(0)) return null;
  try {
    // `stream` keeps an incomplete trailing character pending instead of calling it invalid.
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes, { stream: endsMidFile });
  } catch {
    return null;
  }
}

export async function statTextFile(file: string, shownPath: string): Promise<Stats> {
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

export function countLines(text: string): number {
  let lines = text.endsWith('\n') || text === '' ? 0 : 1;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) lines++;
  return lines;
}

/** The lines of a text, without the empty "line" after a final newline. */
export function splitLines(text: string): string[] {
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  return lines;
}

/** The largest file edit_file changes, and write_file compares with what it replaces. */
export const MAX_EDIT_BYTES = 10 * 1024 * 1024;
