import { mkdir, mkdtemp, readFile, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { editFileTool } from '../../src/agent/tools/edit-file.js';
import { withImages } from '../../src/agent/tools/image-file.js';
import { readFileTool } from '../../src/agent/tools/read-file.js';
import { ToolError } from '../../src/agent/tools/types.js';
import { writeFileTool } from '../../src/agent/tools/write-file.js';
import { openWorkspace, resolveInWorkspace } from '../../src/agent/workspace.js';
import { fx, inWs, toolError, useFileToolWorkspace } from '../support/file-tools.js';

let root: string;
let ws: string;
let outside: string;

beforeEach(async () => {
  root = await realpath(await mkdtemp(path.join(tmpdir(), 'todo-agent-ws-')));
  ws = path.join(root, 'ws');
  outside = path.join(root, 'outside');
  await mkdir(path.join(ws, 'src'), { recursive: true });
  await mkdir(path.join(ws, '.git'), { recursive: true });
  await mkdir(outside);
  await writeFile(path.join(ws, 'src', 'a.txt'), 'inside');
  await writeFile(path.join(ws, '.git', 'config'), '[core]');
  await writeFile(path.join(outside, 'secret.txt'), 'outside');
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

async function refusal(
  requested: string,
  opts?: { mustExist?: boolean; forWrite?: boolean; hidden?: string[] },
) {
  const error: unknown = await resolveInWorkspace(ws, requested, opts).then(
    () => new Error(`expected ${requested} to be refused`),
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ToolError);
  return (error as Error).message;
}

describe('openWorkspace', () => {
  it('returns the real path of a directory', async () => {
    await symlink(ws, path.join(root, 'alias'));
    expect(await openWorkspace(path.join(root, 'alias'))).toBe(ws);
  });

  it('refuses a missing path and a file', async () => {
    await expect(openWorkspace(path.join(root, 'missing'))).rejects.toThrow(/workspace not found/);
    await expect(openWorkspace(path.join(outside, 'secret.txt'))).rejects.toThrow(/not a directory/);
  });
});

describe('resolveInWorkspace', () => {
  it('resolves relative and absolute paths inside the workspace', async () => {
    expect(await resolveInWorkspace(ws, 'src/a.txt')).toBe(path.join(ws, 'src', 'a.txt'));
    expect(await resolveInWorkspace(ws, path.join(ws, 'src', 'a.txt'))).toBe(path.join(ws, 'src', 'a.txt'));
    expect(await resolveInWorkspace(ws, './src/../src/a.txt')).toBe(path.join(ws, 'src', 'a.txt'));
    expect(await resolveInWorkspace(ws, '.')).toBe(ws);
  });

  it('refuses .. escapes', async () => {
    expect(await refusal('../outside/secret.txt')).toBe('path escapes the workspace: ../outside/secret.txt');
    expect(await refusal('src/../../outside/new.txt')).toBe(
      'path escapes the workspace: src/../../outside/new.txt',
    );
    expect(await refusal('..')).toBe('path escapes the workspace: ..');
  });

  it('refuses absolute paths outside', async () => {
    const target = path.join(outside, 'secret.txt');
    expect(await refusal(target)).toBe(`path escapes the workspace: ${target}`);
    expect(await refusal('/etc/passwd')).toBe('path escapes the workspace: /etc/passwd');
  });

  it('refuses a sibling folder whose name starts like the workspace', async () => {
    await mkdir(`${ws}-other`);
    expect(await refusal(`${ws}-other/x.txt`)).toMatch(/^path escapes the workspace/);
  });

  it('refuses a credentials file in the workspace, by name or through a link, and nothing else', async () => {
    const creds = path.join(ws, 'gha-creds-1234.json');
    await writeFile(creds, '{"private_key":"x"}');
    await symlink(creds, path.join(ws, 'innocent.json'));
    const hidden = [creds];
    const held = 'refusing gha-creds-1234.json: it holds credentials the tools may not read';
    expect(await refusal('gha-creds-1234.json', { hidden })).toBe(held);
    expect(await refusal('gha-creds-1234.json', { hidden, forWrite: true })).toBe(held);
    expect(await refusal('innocent.json', { hidden })).toContain('it holds credentials');
    expect(await resolveInWorkspace(ws, 'src/a.txt', { hidden })).toBe(path.join(ws, 'src', 'a.txt'));
  });

  it('refuses a symlinked file pointing outside, for reading and writing', async () => {
    await symlink(path.join(outside, 'secret.txt'), path.join(ws, 'link.txt'));
    expect(await refusal('link.txt')).toBe('path escapes the workspace: link.txt');
    expect(await refusal('link.txt', { forWrite: true })).toBe('path escapes the workspace: link.txt');
  });

  it('refuses a path under a symlinked folder pointing outside, existing or not', async () => {
    await symlink(outside, path.join(ws, 'out'));
    expect(await refusal('out/secret.txt')).toBe('path escapes the workspace: out/secret.txt');
    expect(await refusal('out/new/deeper.txt', { forWrite: true })).toBe(
      'path escapes the workspace: out/new/deeper.txt',
    );
  });

  it('refuses a dangling symlink whose target would be outside', async () => {
    await symlink(path.join(outside, 'not-yet.txt'), path.join(ws, 'dangling'));
    expect(await refusal('dangling', { forWrite: true })).toBe('path escapes the workspace: dangling');
  });

  it('follows a dangling symlink that stays inside to its target', async () => {
    await symlink('src/later.txt', path.join(ws, 'later-link'));
    expect(await resolveInWorkspace(ws, 'later-link')).toBe(path.join(ws, 'src', 'later.txt'));
    expect(await refusal('later-link', { mustExist: true })).toBe('no such file: later-link');
  });

  it('accepts symlinks that point inside, and returns their target', async () => {
    await symlink(path.join(ws, 'src', 'a.txt'), path.join(ws, 'alias.txt'));
    await symlink('src', path.join(ws, 'code'));
    expect(await resolveInWorkspace(ws, 'alias.txt', { mustExist: true })).toBe(
      path.join(ws, 'src', 'a.txt'),
    );
    expect(await resolveInWorkspace(ws, 'code/new/b.txt', { forWrite: true })).toBe(
      path.join(ws, 'src', 'new', 'b.txt'),
    );
  });

  it('resolves a not-yet-existing nested path inside, and refuses it only when it must exist', async () => {
    expect(await resolveInWorkspace(ws, 'x/y/z.txt', { forWrite: true })).toBe(
      path.join(ws, 'x', 'y', 'z.txt'),
    );
    expect(await refusal('x/y/z.txt', { mustExist: true })).toBe('no such file: x/y/z.txt');
  });

  it('lets .git be read but not written, however it is reached', async () => {
    expect(await resolveInWorkspace(ws, '.git/config', { mustExist: true })).toBe(
      path.join(ws, '.git', 'config'),
    );
    expect(await refusal('.git/config', { forWrite: true })).toMatch(
      /^refusing to write inside \.git: \.git\/config/,
    );
    expect(await refusal('.git/hooks/pre-commit', { forWrite: true })).toMatch(
      /^refusing to write inside \.git/,
    );
    expect(await refusal('vendor/lib/.git/HEAD', { forWrite: true })).toMatch(
      /^refusing to write inside \.git/,
    );
    await symlink('.git/config', path.join(ws, 'innocent'));
    expect(await refusal('innocent', { forWrite: true })).toMatch(/^refusing to write inside \.git/);
    expect(await resolveInWorkspace(ws, '.gitignore', { forWrite: true })).toBe(path.join(ws, '.gitignore'));
  });

  it('refuses an empty path and a symlink loop with a ToolError', async () => {
    expect(await refusal('')).toMatch(/^path is empty/);
    expect(await refusal('   ')).toMatch(/^path is empty/);
    await symlink('loop-b', path.join(ws, 'loop-a'));
    await symlink('loop-a', path.join(ws, 'loop-b'));
    expect(await refusal('loop-a')).toMatch(/loop-a/);
  });
});

// Every file tool refuses the files the context hides, read or write, through the one path check they share.
/** The first bytes of a PNG: read_file with images would answer it as a picture if it were not refused. */
const PNG_START = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);

describe('toolFile: the path check every file tool makes', () => {
  useFileToolWorkspace();

  it('are refused by read_file, read_file with images, write_file and edit_file, by name or by a link', async () => {
    const creds = inWs('gha-creds-1234.json');
    await writeFile(creds, Buffer.concat([PNG_START, Buffer.from('{"private_key":"k"}')]));
    await symlink(creds, inWs('innocent.json'));
    const context = { ...fx.context, hidden: [creds] };
    const refusal = 'it holds credentials the tools may not read';
    for (const path of ['gha-creds-1234.json', 'innocent.json']) {
      expect(await toolError(readFileTool.run({ path }, context))).toContain(refusal);
      const answer = withImages(readFileTool).run({ path }, context);
      expect(await toolError(answer.then(() => 'an answer'))).toContain(refusal);
      expect(await toolError(writeFileTool.run({ path, content: 'x' }, context))).toContain(refusal);
      const edit = editFileTool.run({ path, old_text: 'k', new_text: 'x' }, context);
      expect(await toolError(edit)).toContain(refusal);
    }
    expect((await readFile(creds)).subarray(0, PNG_START.length)).toEqual(PNG_START);
    expect(await readFile(creds, 'utf8')).toContain('"private_key":"k"');
  });
});
