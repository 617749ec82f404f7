import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { editFileTool } from '../../../src/agent/tools/edit-file.js';
import { readFileTool } from '../../../src/agent/tools/read-file.js';
import { writeFileTool } from '../../../src/agent/tools/write-file.js';
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
const read = (input: { path: string; offset?: number; limit?: number }) => readFileTool.run(input, context);
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

/** What read_file shows for lines `from`..`to` of numberedLines(): `cat -n` rows. */
const shownLines = (from: number, to: number) =>
  Array.from({ length: to - from + 1 }, (_, i) => `${String(from + i).padStart(6)}\tline ${from + i}`).join(
    '\n',
  );

describe('read_file', () => {
  it('returns a text file with numbered lines, cat -n style, and no note when it is whole', async () => {
    await writeFile(inWs('a.txt'), 'first\n  indented\ttab\nlast without newline é');
    expect(await read({ path: 'a.txt' })).toBe(
      '     1\tfirst\n     2\t  indented\ttab\n     3\tlast without newline é',
    );
  });

  it('says when a file uses CRLF line endings, and does not show the carriage returns', async () => {
    await writeFile(inWs('win.txt'), 'one\r\ntwo\r\n');
    expect(await read({ path: 'win.txt' })).toBe(
      '     1\tone\n     2\ttwo\n[the file uses CRLF line endings (not shown)]',
    );
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
    expect(await read({ path: 'alias.txt' })).toBe('     1\treal');
    expect(await read({ path: '.git/HEAD' })).toBe('     1\tref: refs/heads/main');
  });

  it('with offset and limit, shows those lines and says how many there are and where to read on', async () => {
    await writeFile(inWs('lines.txt'), numberedLines(100));
    expect(await read({ path: 'lines.txt', limit: 10 })).toBe(
      `${shownLines(1, 10)}\n[lines 1-10 of 100 in lines.txt; read on with offset=11]`,
    );
    expect(await read({ path: 'lines.txt', offset: 95, limit: 10 })).toBe(
      `${shownLines(95, 100)}\n[lines 95-100 of 100 in lines.txt]`,
    );
    expect(await toolError(read({ path: 'lines.txt', offset: 101 }))).toBe(
      'offset 101 is past the end of lines.txt, which has 100 lines',
    );
  });

  it('pages a 2,500-line file without losing or splitting a line', async () => {
    await writeFile(inWs('big.txt'), numberedLines(2500));
    const first = await read({ path: 'big.txt' });
    expect(first).toBe(
      `${shownLines(1, 2000)}\n[lines 1-2000 of 2,500 in big.txt; read on with offset=2001]`,
    );
    const second = await read({ path: 'big.txt', offset: 2001 });
    expect(second).toBe(`${shownLines(2001, 2500)}\n[lines 2001-2500 of 2,500 in big.txt]`);
  });

  it('stops a view at the character cap on a line boundary', async () => {
    const long = Array.from({ length: 300 }, (_, i) => `${i + 1}:${'x'.repeat(400)}\n`).join('');
    await writeFile(inWs('wide.txt'), long);
    const text = await read({ path: 'wide.txt' });
    const rows = text.split('\n');
    const note = rows.pop()!;
    const shown = rows.length;
    expect(shown).toBeGreaterThan(100);
    expect(shown).toBeLessThan(300);
    expect(text.length).toBeLessThan(50_200);
    expect(rows.at(-1)).toBe(`${String(shown).padStart(6)}\t${shown}:${'x'.repeat(400)}`);
    expect(note).toBe(`[lines 1-${shown} of 300 in wide.txt; read on with offset=${shown + 1}]`);
  });

  it('cuts a very long line and says how much was left out', async () => {
    await writeFile(inWs('min.js'), `${'a'.repeat(5000)}\nnext\n`);
    expect(await read({ path: 'min.js' })).toBe(
      `     1\t${'a'.repeat(2000)}… [line cut: 3,000 more characters]\n     2\tnext`,
    );
  });

  it('pages a huge file by streaming, without counting all its lines', async () => {
    const lines = numberedLines(500_000); // about 6.4 MB, past the whole-read size
    await writeFile(inWs('huge.txt'), lines);
    const size = Buffer.byteLength(lines).toLocaleString('en-US');
    expect(await read({ path: 'huge.txt', offset: 250_000, limit: 3 })).toBe(
      `${shownLines(250_000, 250_002)}\n[lines 250000-250002 of huge.txt (${size} bytes, too large to count its lines); read on with offset=250003]`,
    );
    expect(await read({ path: 'huge.txt', offset: 499_999 })).toBe(
      `${shownLines(499_999, 500_000)}\n[lines 499999-500000 of 500,000 in huge.txt]`,
    );
  });

  it('cuts the giant line of a huge file while streaming it, keeping its true length', async () => {
    await writeFile(inWs('bundle.min.js'), `${'b'.repeat(5_000_000)}\nend\n`);
    expect(await read({ path: 'bundle.min.js' })).toBe(
      `     1\t${'b'.repeat(2000)}… [line cut: 4,998,000 more characters]\n     2\tend\n` +
        '[lines 1-2 of 2 in bundle.min.js]',
    );
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
      'old_text matches 3 times in f.txt (lines 1, 3, 5); include more surrounding text so it matches once, or pass replace_all: true to replace every occurrence',
    );
    expect(await readFile(inWs('f.txt'), 'utf8')).toBe(content);
  });

  it('with replace_all, renames every occurrence and names their lines', async () => {
    await writeFile(inWs('f.py'), 'total = 0\nfor x in xs:\n    total += x\nprint(total)\n');
    const edits = { path: 'f.py', old_text: 'total', new_text: 'sum_of_xs', replace_all: true };
    expect(await editFileTool.run(edits, context)).toBe(
      'edited f.py: replaced 3 occurrences (lines 1, 3, 4)',
    );
    expect(await readFile(inWs('f.py'), 'utf8')).toBe(
      'sum_of_xs = 0\nfor x in xs:\n    sum_of_xs += x\nprint(sum_of_xs)\n',
    );
  });

  it('applies several edits in order, or none when one fails', async () => {
    await writeFile(inWs('f.txt'), 'one\ntwo\nthree\n');
    const ok = await editFileTool.run(
      {
        path: 'f.txt',
        edits: [
          { old_text: 'one', new_text: '1' },
          { old_text: '1\ntwo', new_text: '1\n2' },
        ],
      },
      context,
    );
    expect(ok).toBe(
      'edited f.txt (2 edits):\n1. replaced 1 line(s) at line 1 with 1 line(s)\n2. replaced 2 line(s) at line 1 with 2 line(s)',
    );
    expect(await readFile(inWs('f.txt'), 'utf8')).toBe('1\n2\nthree\n');
    const failed = editFileTool.run(
      {
        path: 'f.txt',
        edits: [
          { old_text: 'three', new_text: '3' },
          { old_text: 'four', new_text: '4' },
        ],
      },
      context,
    );
    expect(await toolError(failed)).toMatch(/^edit 2 of 2 \(nothing was written\): old_text not found/);
    expect(await readFile(inWs('f.txt'), 'utf8')).toBe('1\n2\nthree\n');
    expect(
      await toolError(editFileTool.run({ path: 'f.txt', old_text: 'a', new_text: 'b', edits: [] }, context)),
    ).toBe('give either old_text/new_text or edits, not both');
    expect(await toolError(editFileTool.run({ path: 'f.txt', old_text: 'a' }, context))).toBe(
      'old_text and new_text are required (or an edits list)',
    );
  });

  it('names the nearest lines when old_text matches nothing', async () => {
    await writeFile(
      inWs('app.ts'),
      'import x from "x";\n\nexport function greet(name: string) {\n  return `Hi ${name}`;\n}\n',
    );
    const message = await toolError(edit('app.ts', 'export function greet(name) {\n', 'x'));
    expect(message).toBe(
      'old_text not found in app.ts; the nearest lines are:\nline 3: export function greet(name: string) {\n' +
        'read the file again and copy the text exactly, whitespace included',
    );
  });

  it('says when old_text carries read_file line numbers', async () => {
    await writeFile(inWs('f.txt'), 'alpha\nbeta\n');
    expect(await toolError(edit('f.txt', '     2\tbeta', 'x'))).toMatch(/read_file's line numbers/);
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
      read_file: ['path', 'offset', 'limit'],
      write_file: ['path', 'content'],
      edit_file: ['path', 'old_text', 'new_text', 'replace_all', 'edits'],
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
