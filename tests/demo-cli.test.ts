// `npm run demo:cli` as a user runs it: the CLI offline in a throw-away project, against the scripted model.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ROOT } from './support/action-harness.js';

describe('npm run demo:cli', () => {
  it('runs the CLI offline on hello.py, shows the panel, each command’s outcome and the diff, and cleans up', async () => {
    const { FORCE_COLOR: _force, ...inherited } = process.env;
    const run = await new Promise<{ code: number | null; stdout: string; stderr: string }>((done, fail) => {
      const child = spawn('npm', ['run', '--silent', 'demo:cli'], {
        cwd: ROOT,
        env: { ...inherited, NO_COLOR: '1' },
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk) => (stdout += chunk));
      child.stderr.on('data', (chunk) => (stderr += chunk));
      child.on('error', fail);
      child.on('close', (code) => done({ code, stdout, stderr }));
    });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('Todos · 4/4 done');
    expect(run.stdout).toMatch(/ bash python3 hello\.py \((exit \d+|killed), \d+ (ms|s)\)/);
    expect(run.stdout).toContain('completed: every todo item is completed');
    expect(run.stdout).toMatch(/^\+def greet\(name: str\) -> str:$/m);
    const project = /A project with hello\.py in (\S+) \(removed at the end\)/.exec(run.stdout)?.[1];
    expect(project).toBeDefined();
    expect(existsSync(project!)).toBe(false);
  }, 90_000);
});
