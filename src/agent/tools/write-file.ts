// write_file: creates a file, or replaces the whole of one, inside the workspace.
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { errorCode, toolFile } from '../workspace.js';
import { changedSpan, showChanges } from './changed-region.js';
import { writeAndCheck } from './syntax/check.js';
import { decodeUtf8, fsFailure, MAX_EDIT_BYTES } from './text-file.js';
import type { Tool } from './types.js';
import { ToolError } from './types.js';

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
    const file = await toolFile(context, input.path, { forWrite: true });
    const before = await oldText(file);
    const write = async () => {
      try {
        await mkdir(path.dirname(file), { recursive: true });
        await writeFile(file, input.content, 'utf8');
      } catch (error) {
        if (errorCode(error) === 'EISDIR') throw new ToolError(`${input.path} is a directory`);
        throw fsFailure('write', input.path, error);
      }
    };
    const after = input.content;
    const target = { file, shownPath: input.path, before: before ?? undefined, after };
    const syntax = await writeAndCheck(write, target, context);
    const bytes = `${Buffer.byteLength(after, 'utf8')} bytes`;
    const span = typeof before === 'string' ? changedSpan(before, after) : { start: 0, end: after.length };
    const summary =
      before === undefined
        ? `created ${input.path} (${bytes})`
        : span
          ? `rewrote ${input.path} (${bytes})`
          : `rewrote ${input.path} (${bytes}): the content it already had`;
    return [summary, span && showChanges(after, [span], input.path), syntax].filter(Boolean).join('\n');
  },
};

/** The text a file holds before it is replaced: undefined for a new file, null for one not read as text. */
async function oldText(file: string): Promise<string | null | undefined> {
  try {
    const info = await stat(file);
    if (!info.isFile() || info.size > MAX_EDIT_BYTES) return null;
    return decodeUtf8(await readFile(file));
  } catch (error) {
    return errorCode(error) === 'ENOENT' ? undefined : null;
  }
}
