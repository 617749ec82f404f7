import { existsSync } from 'node:fs';
import { mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { fx, inWs, toolError, useFileToolWorkspace, write } from '../../support/file-tools.js';
import { numberedLines, shownLines } from '../../support/numbered-lines.js';

useFileToolWorkspace();

describe('write_file', () => {
  it('creates missing parent folders and shows what it wrote, numbered, with the byte count', async () => {
    expect(await write('a/b/c.txt', 'hello')).toBe('created a/b/c.txt (5 bytes)\n     1\thello');
    expect(await readFile(inWs('a', 'b', 'c.txt'), 'utf8')).toBe('hello');
    expect(await write('a/b/c.txt', 'é€')).toBe('rewrote a/b/c.txt (5 bytes)\n     1\té€');
    expect(await readFile(inWs('a', 'b', 'c.txt'), 'utf8')).toBe('é€');
    expect(await write('a/b/c.txt', 'é€')).toBe('rewrote a/b/c.txt (5 bytes): the content it already had');
  });

  it('shows only the changed stretch of a rewrite, three lines either side', async () => {
    await writeFile(inWs('n.txt'), numberedLines(30));
    const changed = numberedLines(30).replace('line 15\n', 'fifteen\nand a half\n');
    expect(await write('n.txt', changed)).toBe(
      `rewrote n.txt (${Buffer.byteLength(changed)} bytes)\n${shownLines(12, 14)}\n` +
        '    15\tfifteen\n    16\tand a half\n' +
        Array.from({ length: 3 }, (_, i) => `${String(17 + i).padStart(6)}\tline ${16 + i}`).join('\n'),
    );
  });

  it('shows at most 40 lines of a new file and says where to read on', async () => {
    const result = await write('long.txt', numberedLines(100));
    expect(result).toBe(
      `created long.txt (792 bytes)\n${shownLines(1, 40)}\n` +
        '[shown up to line 40 of 100 in long.txt; read_file with offset=41 shows the rest]',
    );
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

  it('refuses to write fx.outside, even through a symlinked folder, and creates nothing there', async () => {
    await symlink(fx.outside, inWs('out'));
    expect(await toolError(write('out/new/evil.txt', 'x'))).toBe(
      'path escapes the workspace: out/new/evil.txt',
    );
    expect(await toolError(write('../escape.txt', 'x'))).toBe('path escapes the workspace: ../escape.txt');
    expect(existsSync(path.join(fx.outside, 'new'))).toBe(false);
    expect(existsSync(path.join(fx.root, 'escape.txt'))).toBe(false);
  });

  it('refuses to overwrite a directory', async () => {
    await mkdir(inWs('dir'));
    expect(await toolError(write('dir', 'x'))).toBe('dir is a directory');
  });
});
