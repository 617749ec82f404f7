// A JSON Lines file written as a run goes: one stamped object a line, every string redacted, nothing after
// the close, and a path that cannot be written refused at the open, before any run.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { now, openJsonLines } from '../../src/record/json-lines.js';
import { useTempDir } from '../support/temp-dir.js';

const tempDir = useTempDir('json-lines');

const hide = (text: string) => text.replaceAll('s3cret', '***');
const read = async (path: string) =>
  (await readFile(path, 'utf8'))
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);

describe('openJsonLines', () => {
  it('writes one object a line, stamped, with every string redacted however deep', async () => {
    const before = now();
    const lines = openJsonLines(join(tempDir(), 'run.jsonl'), hide);
    lines.write({ type: 'tool', input: { command: 'echo s3cret', args: ['s3cret', 3] } });
    lines.write({ type: 'end', at: 1 });
    await lines.close();
    const [first, second, ...more] = await read(lines.path);
    expect(more).toEqual([]);
    expect(first).toMatchObject({ type: 'tool', input: { command: 'echo ***', args: ['***', 3] } });
    expect(first!.at).toBeGreaterThanOrEqual(before);
    expect(first!.at).toBeLessThanOrEqual(now());
    // A value's own `at` is its own business: the stamp comes first and is overwritten by it.
    expect(second).toEqual({ at: 1, type: 'end' });
  });

  it('has every line on disk at a flush, and writes nothing after the close', async () => {
    const lines = openJsonLines(join(tempDir(), 'run.jsonl'), hide);
    lines.write({ n: 1 });
    await lines.flush();
    expect((await read(lines.path)).map((line) => line.n)).toEqual([1]);
    await lines.close();
    lines.write({ n: 2 });
    await lines.flush();
    await lines.close();
    expect((await read(lines.path)).map((line) => line.n)).toEqual([1]);
  });

  it('truncates the file at the open, and refuses a path it cannot write there and then', async () => {
    const first = openJsonLines(join(tempDir(), 'run.jsonl'), hide);
    first.write({ n: 1 });
    await first.close();
    const second = openJsonLines(join(tempDir(), 'run.jsonl'), hide);
    expect(await readFile(second.path, 'utf8')).toBe('');
    await second.close();
    expect(() => openJsonLines(join(tempDir(), 'missing', 'run.jsonl'), hide)).toThrow(/ENOENT/);
  });
});
