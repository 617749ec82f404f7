// What the file tools share: a text file stat-ed with its failures named for the model, strict UTF-8 that
// tells text from binary, and lines counted as an editor counts them.
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  countLines,
  decodeUtf8,
  fsFailure,
  SNIFF_BYTES,
  splitLines,
  statTextFile,
} from '../../../src/agent/tools/text-file.js';
import { ToolError } from '../../../src/agent/tools/types.js';
import { useTempDir } from '../../support/temp-dir.js';

const tempDir = useTempDir('text-file');

describe('decodeUtf8', () => {
  it('reads strict UTF-8 with its BOM kept, and nothing with a NUL near the start or broken bytes', () => {
    const bom = Buffer.from('\uFEFFhé\n', 'utf8');
    expect(decodeUtf8(bom)).toBe('\uFEFFhé\n');
    expect(decodeUtf8(Buffer.from([0x61, 0x00, 0x62]))).toBeNull();
    expect(decodeUtf8(Buffer.from([0x61, 0xff]))).toBeNull();
    // A NUL past the sniffed start does not make a file binary.
    expect(decodeUtf8(Buffer.concat([Buffer.alloc(SNIFF_BYTES, 0x61), Buffer.from([0])]))).not.toBeNull();
  });

  it('leaves a character cut at the end of a chunk pending when the file goes on', () => {
    const cut = Buffer.from('aé', 'utf8').subarray(0, 2);
    expect(decodeUtf8(cut)).toBeNull();
    expect(decodeUtf8(cut, true)).toBe('a');
  });
});

describe('lines', () => {
  it('counts and splits lines without the empty one after a final newline', () => {
    expect([
      countLines(''),
      countLines('a'),
      countLines('a\n'),
      countLines('a\nb'),
      countLines('\n\n'),
    ]).toEqual([0, 1, 1, 2, 2]);
    expect(splitLines('a\nb\n')).toEqual(['a', 'b']);
    expect(splitLines('a\n\n')).toEqual(['a', '']);
  });
});

describe('statTextFile', () => {
  it('stats a regular file, and names a missing one, a directory and anything else for the model', async () => {
    const dir = tempDir();
    await writeFile(join(dir, 'a.txt'), 'hi');
    await mkdir(join(dir, 'sub'));
    await symlink('/dev/null', join(dir, 'dev'));
    expect((await statTextFile(join(dir, 'a.txt'), 'a.txt')).size).toBe(2);
    await expect(statTextFile(join(dir, 'b.txt'), 'b.txt')).rejects.toThrow(
      new ToolError('no such file: b.txt'),
    );
    await expect(statTextFile(join(dir, 'sub'), 'sub')).rejects.toThrow(
      'sub is a directory; use bash (ls) to list it',
    );
    await expect(statTextFile(join(dir, 'dev'), 'dev')).rejects.toThrow('dev is not a regular file');
  });

  it('keeps a ToolError as it is, and names the code of any other failure', () => {
    const own = new ToolError('already said');
    expect(fsFailure('read', 'a', own)).toBe(own);
    const denied = Object.assign(new Error('EACCES: permission denied'), { code: 'EACCES' });
    expect(fsFailure('read', 'a.txt', denied).message).toBe('cannot read a.txt: EACCES');
  });
});
