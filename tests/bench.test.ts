// `npm run bench -- --quick` must run to the end and write its JSON. Its numbers are never asserted:
// timings belong in BENCHMARKS.md, not in pass/fail tests.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ROOT } from './support/action-harness.js';

let dir: string | undefined;
let child: ChildProcess | undefined;

afterEach(async () => {
  // npm, tsx and node run as one process group: end them all if the test gave up early.
  if (child?.pid !== undefined && child.exitCode === null && child.signalCode === null) {
    try {
      process.kill(-child.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  child = undefined;
  if (dir) await rm(dir, { recursive: true, force: true });
  dir = undefined;
});

describe('npm run bench', () => {
  it('runs with --quick, exits 0 and writes all six measures to the JSON file', async () => {
    dir = await mkdtemp(join(tmpdir(), 'todo-agent-bench-test-'));
    const out = join(dir, 'results.json');
    const bench = spawn('npm', ['run', '--silent', 'bench', '--', '--quick', '--out', out], {
      cwd: ROOT,
      env: process.env,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child = bench;
    let output = '';
    bench.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    bench.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    const code = await new Promise<number | null>((done) => bench.on('close', done));

    expect(output).toContain('start → first GitHub write');
    expect(output).toContain('start → first model request (GitHub 150 ms)');
    expect(output).toContain('MCP: added to a tool call (local server in the sandbox)');
    expect(code, output).toBe(0);
    const results = JSON.parse(await readFile(out, 'utf8')) as Record<string, unknown>;
    for (const key of [
      'firstWrite',
      'loopOverhead',
      'coldLoop',
      'githubRequests',
      'cacheableShare',
      'clearingShare',
      'peakMemory',
      'distSize',
      'sandbox',
      'mcp',
      'waits',
      'hostileInputs',
      'discovery',
      'start',
    ])
      expect(results, key).toHaveProperty(key);
    expect(results.meta).toMatchObject({ quick: true });
    const verdicts = results.verdicts as { verdict: string }[];
    expect(verdicts.every((row) => ['pass', 'FAIL', 'info'].includes(row.verdict))).toBe(true);
  }, 300_000);
});
