// `todo-agent show FILE` through the bundled CLI: a record printed as the terminal showed its run.
import { execFile } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const CLI = resolve(import.meta.dirname, '../../dist/cli.js');
const run = promisify(execFile);

describe('todo-agent show', () => {
  it('prints a record, and says so when there is no file to read', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'show-'));
    const file = join(dir, 'run.jsonl');
    const lines = [
      { type: 'start', v: 1, task: 'Add hints', source: 'cli' },
      { type: 'turn_start', turn: 1 },
      { type: 'result', status: 'completed' },
    ];
    await writeFile(file, lines.map((line) => JSON.stringify({ at: 1, ...line })).join('\n'));
    const shown = await run(process.execPath, [CLI, 'show', file], {
      env: { ...process.env, NO_COLOR: '1' },
    });
    expect(shown.stdout).toBe('todo-agent run (cli)\ntask: Add hints\n\nTurn 1\nresult: completed\n');
    const missing = await run(process.execPath, [CLI, 'show', join(dir, 'none.jsonl')]).catch(
      (e: { code: number; stderr: string }) => e,
    );
    expect(missing).toMatchObject({ code: 2, stderr: expect.stringContaining('cannot read') });
  });

  it('prints its help for --help, and reads no file of that name', async () => {
    for (const flag of ['--help', '-h']) {
      const help = await run(process.execPath, [CLI, 'show', flag], { cwd: tmpdir() });
      expect(help.stderr).toBe('');
      expect(help.stdout).toMatch(/^Usage: todo-agent show FILE\n/);
      expect(help.stdout).toContain('todo-agent-record.jsonl');
      expect(help.stdout).not.toContain('cannot read');
    }
  });
});
