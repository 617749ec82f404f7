import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { editFileTool, readFileTool, writeFileTool } from '../../../src/agent/tools/files.js';
import type { ToolContext } from '../../../src/agent/tools/types.js';
import { ToolError } from '../../../src/agent/tools/types.js';

let root: string;
let ws: string;
let outside: string;
let context: ToolContext;

beforeEach(async () => {
  root = await realpath(await mkdtemp(path.join(tmpdir(), 'todo-agent-files-')));
  ws = path.join(root, 'ws');
  outside = path.join(root, 'outside');
  await mkdir(path.join(ws, '.git'), { recursive: true });
  await mkdir(outside);
  await writeFile(path.join(outside, 'secret.txt'), 'top secret');
  context = { workspace: ws, bashTimeoutSeconds: 10, env: {} };
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

const inWs = (...parts: string[]) => path.join(ws, ...parts);
const read = (input: { path: string; limit?: number }) => readFileTool.run(input, context);
const write = (file: string, content: string) => writeFileTool.run({ path: file, content }, context);
const edit = (file: string, old_text: string, new_text: string) =>
  editFileTool.run({ path: file, old_text, new_text }, context);

async function toolError(pending: Promise<string>): Promise<string> {
  const error: unknown = await pending.then(
    () => new Error('expected a ToolError'),
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ToolError);
  return (error as Error).message;
}

const numberedLines = (count: number) => Array.from({ length: count }, (_, i) => `line ${i + 1}\n`).join('');

describe('read_file', () => {
  it('returns a text file exactly', async () => {
    const content = 'first\n  indented\ttab\r\nlast without newline é';
    await writeFile(inWs('a.txt'), content);
    expect(await read({ path: 'a.txt' })).toBe(content);
  });

  it('refuses missing files, directories and empty paths', async () => {
    expect(await toolError(read({ path: 'nope.txt' }))).toBe('no such file: nope.txt');
    await mkdir(inWs('dir'));
    expect(await toolError(read({ path: 'dir' }))).toMatch(/^dir is a directory/);
    expect(await toolError(read({ path: '' }))).toMatch(/^path is empty/);
  });

  it('says when a file is empty', async () => {
    await writeFile(inWs('empty'), '');
    expect(await read({ path: 'empty' })).toBe('(empty is empty)');
  });

  it('refuses binary files: a NUL byte, or bytes that are not UTF-8', async () => {
    await writeFile(inWs('image.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x01]));
    await writeFile(inWs('latin1.txt'), Buffer.from('caf\xe9', 'latin1'));
    expect(await toolError(read({ path: 'image.png' }))).toBe(
      'binary file (6 bytes); use bash to inspect it',
    );
    expect(await toolError(read({ path: 'latin1.txt' }))).toBe(
      'binary file (4 bytes); use bash to inspect it',
    );
  });

  it('refuses paths outside the workspace, directly or through symlinks', async () => {
    await symlink(path.join(outside, 'secret.txt'), inWs('link.txt'));
    await symlink(outside, inWs('out'));
    for (const requested of [
      '../outside/secret.txt',
      path.join(outside, 'secret.txt'),
      'link.txt',
      'out/secret.txt',
    ]) {
      expect(await toolError(read({ path: requested }))).toBe(`path escapes the workspace: ${requested}`);
    }
  });

  it('reads through a symlink that stays inside, and reads .git', async () => {
    await writeFile(inWs('real.txt'), 'real');
    await symlink('real.txt', inWs('alias.txt'));
    await writeFile(inWs('.git', 'HEAD'), 'ref: refs/heads/main\n');
    expect(await read({ path: 'alias.txt' })).toBe('real');
    expect(await read({ path: '.git/HEAD' })).toBe('ref: refs/heads/main\n');
  });

  it('with limit, shows the first lines and says how many more there are', async () => {
    await writeFile(inWs('lines.txt'), numberedLines(100));
    const text = await read({ path: 'lines.txt', limit: 10 });
    expect(text.startsWith(numberedLines(10))).toBe(true);
    expect(text).not.toContain('line 11');
    expect(text).toContain('showing lines 1-10 of 100; 90 more lines');
  });

  it('with a limit beyond the end, returns the whole file and no note', async () => {
    await writeFile(inWs('short.txt'), numberedLines(5));
    expect(await read({ path: 'short.txt', limit: 5 })).toBe(numberedLines(5));
    expect(await read({ path: 'short.txt', limit: 50 })).toBe(numberedLines(5));
  });

  it('caps a long file to head and tail with a marker and says so', async () => {
    const content = numberedLines(100_000); // about 1.1 MB, read whole
    await writeFile(inWs('long.txt'), content);
    const text = await read({ path: 'long.txt' });
    expect(text.startsWith('line 1\nline 2\n')).toBe(true);
    expect(text).toMatch(
      /\n\.\.\. \[[\d,]+ characters cut: showing the first 20,000 and the last 30,000\] \.\.\.\n/,
    );
    expect(text).toContain('line 100000\n[long.txt has');
    expect(text).toContain('100000 lines and was cut in the middle');
    expect(text.length).toBeLessThan(50_500);
  });

  it('reads only the ends of a huge file', async () => {
    const lines = numberedLines(500_000); // about 6.4 MB, past the whole-read size
    await writeFile(inWs('huge.txt'), lines);
    const size = Buffer.byteLength(lines);
    const text = await read({ path: 'huge.txt' });
    expect(text.startsWith('line 1\nline 2\n')).toBe(true);
    expect(text).toContain(`bytes cut: showing the first 20,000 and the last 30,000 characters] ...\n`);
    expect(text).toContain(`line 500000\n[the file is ${size.toLocaleString('en-US')} bytes`);
    expect(text.length).toBeLessThan(50_500);
    const cut = Number(/\[([\d,]+) bytes cut/.exec(text)?.[1]?.replaceAll(',', ''));
    expect(cut).toBe(size - 50_000);
  });

  it('reads the first lines of a huge file with limit', async () => {
    await writeFile(inWs('huge.txt'), numberedLines(500_000));
    const text = await read({ path: 'huge.txt', limit: 3 });
    expect(
      text.startsWith('line 1\nline 2\nline 3\n[showing at most the first 3 lines; more lines follow'),
    ).toBe(true);
  });

  it('refuses a huge binary file', async () => {
    const bytes = Buffer.alloc(5 * 1024 * 1024, 0x61);
    bytes[100] = 0;
    await writeFile(inWs('blob.bin'), bytes);
    expect(await toolError(read({ path: 'blob.bin' }))).toBe(
      'binary file (5,242,880 bytes); use bash to inspect it',
    );
  });
});

describe('write_file', () => {
  it('creates missing parent folders and reports the byte count', async () => {
    expect(await write('a/b/c.txt', 'hello')).toBe('wrote 5 bytes to a/b/c.txt');
    expect(await readFile(inWs('a', 'b', 'c.txt'), 'utf8')).toBe('hello');
    expect(await write('a/b/c.txt', 'é€')).toBe('wrote 5 bytes to a/b/c.txt');
    expect(await readFile(inWs('a', 'b', 'c.txt'), 'utf8')).toBe('é€');
  });

  it('refuses to write inside .git', async () => {
    await writeFile(inWs('.git', 'config'), '[core]\n');
    expect(await toolError(write('.git/config', 'evil'))).toMatch(/^refusing to write inside \.git/);
    expect(await toolError(write('.git/hooks/post-checkout', 'evil'))).toMatch(
      /^refusing to write inside \.git/,
    );
    expect(await readFile(inWs('.git', 'config'), 'utf8')).toBe('[core]\n');
    expect(existsSync(inWs('.git', 'hooks'))).toBe(false);
  });

  it('refuses to write outside, even through a symlinked folder, and creates nothing there', async () => {
    await symlink(outside, inWs('out'));
    expect(await toolError(write('out/new/evil.txt', 'x'))).toBe(
      'path escapes the workspace: out/new/evil.txt',
    );
    expect(await toolError(write('../escape.txt', 'x'))).toBe('path escapes the workspace: ../escape.txt');
    expect(existsSync(path.join(outside, 'new'))).toBe(false);
    expect(existsSync(path.join(root, 'escape.txt'))).toBe(false);
  });

  it('refuses to overwrite a directory', async () => {
    await mkdir(inWs('dir'));
    expect(await toolError(write('dir', 'x'))).toBe('dir is a directory');
  });
});

describe('edit_file', () => {
  it('replaces the one match and keeps every other byte', async () => {
    const original = '\ufeffheader\r\nconst x = 1;\r\nconst y = $2;\r\nno newline at end';
    await writeFile(inWs('f.ts'), original);
    const result = await edit('f.ts', 'const x = 1;', 'const x = $&;');
    expect(result).toBe('edited f.ts: replaced 1 line(s) at line 2 with 1 line(s)');
    expect(await readFile(inWs('f.ts'))).toEqual(
      Buffer.from('\ufeffheader\r\nconst x = $&;\r\nconst y = $2;\r\nno newline at end'),
    );
  });

  it('reports zero matches, with a hint when only whitespace differs', async () => {
    await writeFile(inWs('f.txt'), 'alpha\n    beta\ngamma\n');
    expect(await toolError(edit('f.txt', 'delta', 'x'))).toMatch(
      /^old_text not found in f\.txt; read the file again/,
    );
    expect(await toolError(edit('f.txt', '  beta  \n', 'x'))).toMatch(
      /^old_text not found in f\.txt; it would match without its leading\/trailing whitespace/,
    );
    expect(await readFile(inWs('f.txt'), 'utf8')).toBe('alpha\n    beta\ngamma\n');
  });

  it('hints at CRLF line endings', async () => {
    await writeFile(inWs('win.txt'), 'one\r\ntwo\r\n');
    expect(await toolError(edit('win.txt', 'one\ntwo', 'x'))).toMatch(/CRLF line endings/);
  });

  it('refuses several matches and names their lines', async () => {
    const content = 'todo\nkeep\ntodo\nkeep\ntodo\n';
    await writeFile(inWs('f.txt'), content);
    expect(await toolError(edit('f.txt', 'todo', 'done'))).toBe(
      'old_text matches 3 times in f.txt (lines 1, 3, 5); include more surrounding text so it matches once',
    );
    expect(await readFile(inWs('f.txt'), 'utf8')).toBe(content);
  });

  it('counts overlapping matches as ambiguous', async () => {
    await writeFile(inWs('f.txt'), 'aaa');
    expect(await toolError(edit('f.txt', 'aa', 'b'))).toMatch(/^old_text matches 2 times/);
  });

  it('handles a multi-line replacement and deletion', async () => {
    await writeFile(inWs('f.txt'), 'a\nb\nc\nd\n');
    expect(await edit('f.txt', 'b\nc\n', 'B\n')).toBe(
      'edited f.txt: replaced 2 line(s) at line 2 with 1 line(s)',
    );
    expect(await edit('f.txt', 'd\n', '')).toBe('edited f.txt: replaced 1 line(s) at line 3 with 0 line(s)');
    expect(await readFile(inWs('f.txt'), 'utf8')).toBe('a\nB\n');
  });

  it('refuses an empty or unchanged old_text, a missing file, .git and binary files', async () => {
    await writeFile(inWs('f.txt'), 'x');
    await writeFile(inWs('.git', 'config'), 'x');
    await writeFile(inWs('bin'), Buffer.from([0x78, 0x00]));
    expect(await toolError(edit('f.txt', '', 'y'))).toMatch(/^old_text is empty/);
    expect(await toolError(edit('f.txt', 'x', 'x'))).toMatch(/identical/);
    expect(await toolError(edit('missing.txt', 'x', 'y'))).toBe('no such file: missing.txt');
    expect(await toolError(edit('.git/config', 'x', 'y'))).toMatch(/^refusing to write inside \.git/);
    expect(await toolError(edit('bin', 'x', 'y'))).toMatch(/^binary file/);
  });
});

describe('tool definitions', () => {
  it('have fixed names and a description on every input field', () => {
    const tools = [readFileTool, writeFileTool, editFileTool];
    expect(tools.map((t) => t.name)).toEqual(['read_file', 'write_file', 'edit_file']);
    const fields: Record<string, string[]> = {
      read_file: ['path', 'limit'],
      write_file: ['path', 'content'],
      edit_file: ['path', 'old_text', 'new_text'],
    };
    for (const tool of tools) {
      const schema = z.toJSONSchema(tool.inputSchema) as {
        properties: Record<string, { description?: string }>;
      };
      expect(Object.keys(schema.properties)).toEqual(fields[tool.name]);
      for (const [name, field] of Object.entries(schema.properties)) {
        expect(field.description, `${tool.name}.${name}`).toBeTruthy();
      }
    }
  });

  it('read_file accepts only a positive whole-number limit', () => {
    expect(readFileTool.inputSchema.safeParse({ path: 'a', limit: 0 }).success).toBe(false);
    expect(readFileTool.inputSchema.safeParse({ path: 'a', limit: 2.5 }).success).toBe(false);
    expect(readFileTool.inputSchema.safeParse({ path: 'a', limit: 3 }).success).toBe(true);
  });
});
