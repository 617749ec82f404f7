import { existsSync } from 'node:fs';
import { mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { fx, inWs, toolError, useFileToolWorkspace, write } from '../../support/file-tools.js';

useFileToolWorkspace();

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
