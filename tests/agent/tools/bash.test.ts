import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, readFile, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { childEnv } from '../../../src/sandbox/commands/child-env.js';
import { createBashTool, runCommand } from '../../../src/agent/tools/bash.js';
import type { ToolContext } from '../../../src/agent/tools/types.js';
import { ToolError } from '../../../src/agent/tools/types.js';

let ws: string;
/** Pids of background processes a test started, killed in afterEach in case an assertion failed. */
const started: number[] = [];

beforeEach(async () => {
  ws = await realpath(await mkdtemp(path.join(tmpdir(), 'todo-agent-bash-')));
});

afterEach(async () => {
  for (const pid of started.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone, as it should be
    }
  }
  await rm(ws, { recursive: true, force: true });
});

function context(overrides: Partial<ToolContext> = {}): ToolContext {
  return { workspace: ws, bashTimeoutSeconds: 20, env: childEnv(process.env), ...overrides };
}

const bashTool = createBashTool(20);
const answer = (command: string, overrides?: Partial<ToolContext>, timeout?: number) =>
  bashTool.run({ command, ...(timeout ? { timeout } : {}) }, context(overrides));
const run = async (command: string, overrides?: Partial<ToolContext>, timeout?: number) =>
  (await answer(command, overrides, timeout)).text;

/**
 * Whether `pid` is still a live process. kill(pid, 0) throws ESRCH once it is gone; a killed child
 * whose parent died may linger as a zombie when PID 1 does not reap, and a zombie runs nothing.
 */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return false;
    throw error;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    return state !== 'Z' && state !== 'X';
  } catch {
    return false; // vanished between the two checks
  }
}

/** SIGKILL is delivered asynchronously: give the kernel a moment before calling a process alive. */
async function settlesDead(pid: number): Promise<boolean> {
  for (let i = 0; i < 50 && isAlive(pid); i++) await new Promise((r) => setTimeout(r, 20));
  return !isAlive(pid);
}

async function waitForFile(file: string): Promise<string> {
  for (let i = 0; i < 500; i++) {
    if (existsSync(file)) {
      const text = (await readFile(file, 'utf8')).trim();
      if (text !== '') return text;
    }
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`${file} never appeared`);
}

async function pidFrom(file: string): Promise<number> {
  const pid = Number(await waitForFile(file));
  started.push(pid);
  return pid;
}

describe('bash tool', () => {
  it('reports exit code 0 and the output', async () => {
    expect(await run('echo hello')).toBe('exit code: 0\nhello\n');
  });

  it('returns a non-zero exit as a normal result, not an error', async () => {
    expect(await run('echo failing; exit 3')).toBe('exit code: 3\nfailing\n');
  });

  it('gives the exit code as a field beside the text, null for a command that did not exit', async () => {
    expect(await answer('exit 3')).toEqual({ text: 'exit code: 3\n(no output)', exitCode: 3 });
    expect((await answer('kill -KILL $$')).exitCode).toBeNull();
    expect((await answer('sleep 60', { bashTimeoutSeconds: 1 })).exitCode).toBeNull();
    // Output that looks like a status line is only output: the field comes from the process.
    expect((await answer("printf 'exit code: 9\\n'; exit 4")).exitCode).toBe(4);
  });

  it('merges stderr into the output', async () => {
    const text = await run('echo to-stdout; echo to-stderr >&2; exit 1');
    expect(text).toMatch(/^exit code: 1\n/);
    expect(text).toContain('to-stdout\n');
    expect(text).toContain('to-stderr\n');
  });

  it('says when there was no output', async () => {
    expect(await run('true')).toBe('exit code: 0\n(no output)');
  });

  it('runs in the workspace with bash', async () => {
    expect(await run('pwd; echo "$BASH_VERSION" | cut -c1')).toMatch(
      new RegExp(`^exit code: 0\\n${ws}\\n\\d\\n$`),
    );
  });

  it('reports a shell killed by a signal', async () => {
    expect(await run('kill -KILL $$')).toBe('killed by signal SIGKILL\n(no output)');
  });

  it('keeps multi-byte characters intact', async () => {
    expect(await run("printf 'caf\\xc3\\xa9 \\xe2\\x82\\xac'")).toBe('exit code: 0\ncafé €');
  });

  it('caps long output to a head, a marker and a tail', async () => {
    const result = await runCommand('seq 1 100000', {
      cwd: ws,
      env: childEnv(),
      timeoutMs: 20_000,
      limit: 1_000,
    });
    expect(result.exitCode).toBe(0);
    expect(result.output.startsWith('1\n2\n3\n')).toBe(true);
    expect(result.output.endsWith('99999\n100000\n')).toBe(true);
    expect(result.output).toMatch(
      /\n\.\.\. \[[\d,]+ characters cut: showing the first 400 and the last 600; to see the rest, narrow the command .* search that with grep -n\] \.\.\.\n/,
    );
    expect(result.output.length).toBeLessThan(1_400);
  });

  it('streams 100 MB of output with bounded memory', async () => {
    const before = process.memoryUsage().rss;
    const text = await run("head -c 100000000 /dev/zero | tr '\\0' 'a'");
    const growth = process.memoryUsage().rss - before;
    expect(text).toContain(
      '\n... [99,950,000 characters cut: showing the first 20,000 and the last 30,000; to see the rest, narrow',
    );
    expect(text.length).toBeLessThan(50_400);
    expect(growth).toBeLessThan(100 * 1024 * 1024);
  });

  it('kills a command that runs past the timeout, with its children', async () => {
    const pidFile = path.join(ws, 'child.pid');
    const text = await run(`sleep 60 & echo $! > ${pidFile}; echo waiting; wait`, { bashTimeoutSeconds: 1 });
    expect(text).toBe(
      'timed out after 1 s; process group killed. That is the most this run allows (bash_timeout): run it in smaller steps (one package, one test file)\nwaiting\n',
    );
    expect(await settlesDead(await pidFrom(pidFile))).toBe(true);
  });

  it('kills a plain hung command', async () => {
    expect(await run('sleep 60', { bashTimeoutSeconds: 1 })).toMatch(
      /^timed out after 1 s; process group killed\. .*\n\(no output\)$/,
    );
  });

  it('leaves no background child alive once the command has exited', async () => {
    const pidFile = path.join(ws, 'bg.pid');
    const text = await run(`(sleep 60 & echo $! > ${pidFile}); echo started`);
    expect(text).toBe('exit code: 0\nstarted\n');
    expect(await settlesDead(await pidFrom(pidFile))).toBe(true);
  });

  it('does not wait for a background child that holds the output pipe', async () => {
    const pidFile = path.join(ws, 'holder.pid');
    // The child inherits stdout and would keep the pipe open for a minute.
    const text = await run(`sleep 60 & echo $! > ${pidFile}; echo done`, { bashTimeoutSeconds: 30 });
    expect(text).toBe('exit code: 0\ndone\n');
    expect(await settlesDead(await pidFrom(pidFile))).toBe(true);
  });

  it('runs without secrets in the environment', async () => {
    const env = childEnv({
      ...process.env,
      INPUT_GITHUB_TOKEN: 'fake-input-token-1234',
      ANTHROPIC_API_KEY: 'fake-anthropic-key-5678',
      INNOCENT: 'ghp_FAKEfakeFAKEfake0123456789abcdef',
    });
    const text = await run('env', { env });
    expect(text).toMatch(/^exit code: 0\n/);
    expect(text).toContain('GIT_TERMINAL_PROMPT=0');
    expect(text).toMatch(/^PATH=/m);
    for (const leaked of [
      'INPUT_GITHUB_TOKEN',
      'fake-input-token-1234',
      'ANTHROPIC_API_KEY',
      'fake-anthropic',
      'ghp_FAKE',
    ]) {
      expect(text).not.toContain(leaked);
    }
  });

  it('kills the command when the signal aborts', async () => {
    const controller = new AbortController();
    const pidFile = path.join(ws, 'abort.pid');
    const pending = run(`sleep 60 & echo $! > ${pidFile}; wait`, { signal: controller.signal });
    const pid = await pidFrom(pidFile);
    controller.abort();
    expect(await pending).toBe('aborted (the run was cancelled); process group killed\n(no output)');
    expect(await settlesDead(pid)).toBe(true);
  });

  it('does not start a command when the signal is already aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    const text = await run('touch ran', { signal: controller.signal });
    expect(text).toMatch(/^aborted/);
    expect(existsSync(path.join(ws, 'ran'))).toBe(false);
  });

  it('throws a ToolError for an empty command or one that cannot start', async () => {
    await expect(run('  ')).rejects.toThrow(ToolError);
    await expect(
      runCommand('true', { cwd: path.join(ws, 'missing'), env: childEnv(), timeoutMs: 5_000 }),
    ).rejects.toThrow(/could not start the command/);
  });

  it('honours a per-call timeout below the ceiling, and says how to raise it', async () => {
    const text = await run('echo started; sleep 60', { bashTimeoutSeconds: 20 }, 1);
    expect(text).toBe(
      'timed out after 1 s; process group killed. Run it again with a larger timeout (up to 20), or in smaller steps\nstarted\n',
    );
  });

  it('refuses a timeout over the ceiling without running the command', async () => {
    const error = await run('touch ran', { bashTimeoutSeconds: 20 }, 21).catch((e: Error) => e);
    expect(error).toBeInstanceOf(ToolError);
    expect((error as Error).message).toBe(
      "timeout 21 is over this run's ceiling of 20 s (bash_timeout); use a smaller timeout, or split the work into smaller steps",
    );
    expect(existsSync(path.join(ws, 'ran'))).toBe(false);
  });

  it('reports a failure inside a pipeline as a failure (pipefail)', async () => {
    expect(await run('(echo out; exit 3) | tail -n 1')).toBe('exit code: 3\nout\n');
    expect(await run('echo fine | tail -n 1')).toBe('exit code: 0\nfine\n');
  });

  it('states its default and its ceiling to the model', () => {
    const tool = createBashTool(900);
    expect(tool.description).toContain('after 120 s');
    expect(tool.description).toContain('at most 900 s');
    expect(tool.description).toContain('| tail -n 60');
    expect(createBashTool(30).description).toContain('after 30 s');
  });

  it('describes its input fields', async () => {
    const { z } = await import('zod');
    const schema = z.toJSONSchema(bashTool.inputSchema) as {
      properties: Record<string, { description?: string; type?: string; maximum?: number }>;
      required: string[];
    };
    expect(bashTool.name).toBe('bash');
    expect(schema.required).toEqual(['command']);
    expect(schema.properties.command?.description).toBeTruthy();
    expect(schema.properties.timeout).toMatchObject({ type: 'integer', maximum: 20 });
  });
});
