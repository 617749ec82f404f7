import { mkdir, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { fx, inWs, read, toolError, useFileToolWorkspace } from '../../support/file-tools.js';
import { numberedLines, shownLines } from '../../support/numbered-lines.js';

useFileToolWorkspace();

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

  it('refuses paths fx.outside the workspace, directly or through symlinks', async () => {
    await symlink(path.join(fx.outside, 'secret.txt'), inWs('link.txt'));
    await symlink(fx.outside, inWs('out'));
    for (const requested of [
      '../fx.outside/secret.txt',
      path.join(fx.outside, 'secret.txt'),
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
