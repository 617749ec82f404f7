// A workspace for the file tools' unit tests: a fresh temp root per test with the workspace (holding an
// empty .git) and a folder beside it that the tools must never reach, plus short ways to call each tool.
import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect } from 'vitest';
import { editFileTool } from '../../src/agent/tools/edit-file.js';
import { readFileTool } from '../../src/agent/tools/read-file.js';
import { writeFileTool } from '../../src/agent/tools/write-file.js';
import { ToolError, type ToolContext } from '../../src/agent/tools/types.js';

/** The current test's paths and tool context, set anew before each test. */
export const fx = {
  root: '',
  ws: '',
  outside: '',
  context: { workspace: '', bashTimeoutSeconds: 10, env: {} } as ToolContext,
};

/** Registers the per-test workspace in the calling test file. */
export function useFileToolWorkspace(): void {
  beforeEach(async () => {
    fx.root = await realpath(await mkdtemp(path.join(tmpdir(), 'todo-agent-files-')));
    fx.ws = path.join(fx.root, 'ws');
    fx.outside = path.join(fx.root, 'outside');
    await mkdir(path.join(fx.ws, '.git'), { recursive: true });
    await mkdir(fx.outside);
    await writeFile(path.join(fx.outside, 'secret.txt'), 'top secret');
    fx.context = { workspace: fx.ws, bashTimeoutSeconds: 10, env: {} };
  });
  afterEach(async () => {
    await rm(fx.root, { recursive: true, force: true });
  });
}

export const inWs = (...parts: string[]) => path.join(fx.ws, ...parts);
export const read = (input: { path: string; offset?: number; limit?: number }) =>
  readFileTool.run(input, fx.context);
export const write = (file: string, content: string) =>
  writeFileTool.run({ path: file, content }, fx.context);
export const edit = (file: string, old_text: string, new_text: string) =>
  editFileTool.run({ path: file, old_text, new_text }, fx.context);
/** edit_file with an edits list, applied in order. */
export const editEach = (
  file: string,
  edits: Array<{ old_text: string; new_text: string; replace_all?: boolean }>,
) => editFileTool.run({ path: file, edits }, fx.context);

/** The message of the ToolError the call fails with (and that it is one). */
export async function toolError(pending: Promise<string>): Promise<string> {
  const error: unknown = await pending.then(
    () => new Error('expected a ToolError'),
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ToolError);
  return (error as Error).message;
}
