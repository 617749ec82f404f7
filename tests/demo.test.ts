// `npm run demo` as a user runs it: a child process that must finish the whole flow and show it. The same run
// writes the fingerprints of the moments the docs' pictures show, which must be those of the committed pictures:
// so CI needs no Chromium to know that the pictures in docs/pictures/ still show what the demo posts.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { PICTURES, SOURCES_FILE } from '../scripts/pictures/write.js';
import { ROOT } from './support/action-harness.js';

let child: ChildProcess | undefined;
afterEach(() => {
  // Only after a timeout: npm, tsx and the demo share a process group; the demo cleans up on SIGTERM.
  if (child?.pid && child.exitCode === null && child.signalCode === null) process.kill(-child.pid, 'SIGTERM');
  child = undefined;
});

interface DemoRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

function runDemo(env: NodeJS.ProcessEnv, args: string[] = []): Promise<DemoRun> {
  return new Promise((resolve, reject) => {
    const started = spawn('npm', ['run', '--silent', 'demo', '--', ...args], {
      cwd: ROOT,
      env,
      stdio: 'pipe',
      detached: true,
    });
    child = started;
    let stdout = '';
    let stderr = '';
    started.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    started.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    started.on('error', reject);
    started.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** The text of the last `version N of N` block: the comment as the run left it. */
function lastVersion(stdout: string): string {
  const headers = [...stdout.matchAll(/^version (\d+) of (\d+) \((created|edited) at \+\d+\.\d s\)$/gm)];
  const last = headers.at(-1);
  expect(last?.[1]).toBe(last?.[2]);
  const from = last!.index + last![0].length;
  const end = stdout.indexOf('\n── ', from);
  return stdout.slice(from, end === -1 ? undefined : end);
}

describe('npm run demo', () => {
  it('runs the bundle offline and shows the checklist, the pull request and its diff', async () => {
    const { FORCE_COLOR: _force, ...inherited } = process.env;
    const sources = mkdtempSync(join(tmpdir(), 'todo-agent-demo-sources-'));
    const run = await runDemo({ ...inherited, NO_COLOR: '1' }, ['--sources', sources]);

    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const out = run.stdout;

    // The final checklist: every item ticked, the heading of a finished run.
    const final = lastVersion(out);
    expect(final).toContain('### ✅ todo-agent finished: Refactor hello.py');
    expect(final.match(/^│ - \[x\] /gm)).toHaveLength(4);
    expect(out).toMatch(/^version 2 of \d+ \(edited at \+\d+\.\d s\)$/m);

    // The pull request and its diff.
    expect(out).toMatch(/^│ Closes #1$/m);
    expect(out).toContain('agent/issue-1-4242 → main');
    expect(out).toMatch(/^│ diff --git a\/hello\.py b\/hello\.py$/m);
    expect(out).toMatch(/^│ \+def greet\(name: str\) -> str:$/m);
    expect(out).toMatch(/^status +completed$/m);
    // The scripted model played Sonnet 5.5, thinking blocks and all, and refused nothing.
    expect(out).toContain('playing claude-sonnet-5-5');

    // Workflow commands are made readable, nothing secret-shaped leaks, no colour without a terminal.
    expect(out).toContain('▸ Turn 1');
    expect(out).not.toMatch(/::(group|endgroup|add-mask)::/);
    expect(out).not.toMatch(/ghs_|sk-ant-/);
    expect(out).not.toContain('\u001b[');

    // The demo removed its sandbox (origin, checkout, runner files).
    const sandbox = /checkout in (\S+) \(removed at the end\)/.exec(out)?.[1];
    expect(sandbox).toBeDefined();
    expect(existsSync(sandbox!)).toBe(false);

    // The moments the pictures show are the ones this run posted (`npm run pictures` takes them anew).
    const fresh = JSON.parse(readFileSync(join(sources, SOURCES_FILE), 'utf8')) as unknown;
    rmSync(sources, { recursive: true, force: true });
    const committed = JSON.parse(readFileSync(join(PICTURES, SOURCES_FILE), 'utf8')) as unknown;
    expect(fresh, 'docs/pictures/ shows an older demo: run `npm run pictures`').toEqual(committed);
    expect(Object.keys(committed as object)).toEqual([
      'checklist-planning',
      'checklist-mid-run',
      'checklist-done',
      'pull-request',
    ]);
  }, 150_000);
});
