import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { waitForLine } from '../../src/sandbox/ready-line.js';

/** A node process running `script`, with its three streams piped, as the sandbox starts its own. */
function child(script: string) {
  return spawn(process.execPath, ['-e', script], { stdio: ['pipe', 'pipe', 'pipe'] });
}

describe('waitForLine', () => {
  it('gives the match once the process prints the line, even split across writes', async () => {
    const ready = child(
      `process.stdout.write('starting\\nrea'); setTimeout(() => process.stdout.write('dy 42\\n'), 50); setTimeout(() => {}, 5000);`,
    );
    const match = await waitForLine(ready, /^ready (\d+)$/m, 10_000);
    expect(match).not.toHaveProperty('failed');
    expect((match as RegExpExecArray)[1]).toBe('42');
    ready.kill('SIGKILL');
  });

  it('says how a process that exits first ended, with the end of its stderr', async () => {
    const failing = child(`console.error('one'); console.error('two: no namespace'); process.exit(3);`);
    expect(await waitForLine(failing, /^ready$/m, 10_000)).toEqual({
      failed: 'exited with code 3',
      detail: ': one two: no namespace',
    });
  });

  it('kills a process that never says it is ready, once the time is up', async () => {
    const silent = child(`setTimeout(() => {}, 60_000);`);
    const exited = new Promise((resolve) => silent.once('exit', (_code, signal) => resolve(signal)));
    expect(await waitForLine(silent, /^ready$/m, 200)).toEqual({ failed: 'timed out', detail: '' });
    expect(await exited).toBe('SIGKILL');
  });
});
