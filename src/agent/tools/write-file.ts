// write_file: creates a file, or replaces the whole of one, inside the workspace.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { errorCode, resolveInWorkspace } from '../workspace.js';
import { fsFailure } from './text-file.js';
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
