// The bash tool: one shell command in the workspace, in its own process group, with bounded output.
import { spawn } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { CappedOutput, DEFAULT_OUTPUT_LIMIT } from '../capped-output.js';
import type { Tool } from './types.js';
import { ToolError } from './types.js';

/** Between SIGTERM and SIGKILL when a command times out or is aborted. */
const KILL_GRACE_MS = 1_000;
/** After the shell exits, how long to wait for its pipes to close before giving up on them. */
const DRAIN_MS = 200;

export interface RunCommandOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  timeoutMs: number;
  signal?: AbortSignal;
  /** Characters of output kept (head + tail). */
  limit?: number;
}

export interface CommandResult {
  /** null when the shell was ended by a signal. */
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  aborted: boolean;
  /** stdout and stderr merged, capped. */
  output: string;
}

/** bash from the command's PATH (or the usual places), else /bin/sh. */
function findShell(env: NodeJS.ProcessEnv): string {
  const dirs = [...(env.PATH ?? '').split(path.delimiter), '/bin', '/usr/bin'].filter((dir) =>
    path.isAbsolute(dir),
  );
  for (const dir of dirs) {
    const candidate = path.join(dir, 'bash');
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here; keep looking
    }
  }
  return '/bin/sh';
}

/** Signals every process in the group led by `pid`; a group that is already gone is fine. */
function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // ESRCH: nothing left in the group
  }
}

/** Runs `command` with `bash -c`; resolves with whatever happened, rejects only if it cannot start. */
export function runCommand(command: string, opts: RunCommandOptions): Promise<CommandResult> {
  return new Promise((resolve, reject) => {
    if (opts.signal?.aborted) {
      resolve({ exitCode: null, signal: null, timedOut: false, aborted: true, output: '' });
      return;
    }
    const output = new CappedOutput(opts.limit ?? DEFAULT_OUTPUT_LIMIT);
    const child = spawn(findShell(opts.env), ['-c', command], {
      cwd: opts.cwd,
      env: opts.env,
      detached: true, // its own process group, so one kill reaches every descendant
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const pid = child.pid;
    let timedOut = false;
    let aborted = false;
    let killTimer: NodeJS.Timeout | undefined;

    // Strings, so each stream's UTF-8 is decoded on its own and the two never garble each other.
    for (const stream of [child.stdout, child.stderr]) {
      stream.setEncoding('utf8');
      stream.on('data', (chunk: string) => output.write(chunk));
    }

    const stop = (): void => {
      if (pid === undefined || killTimer) return;
      signalGroup(pid, 'SIGTERM');
      killTimer = setTimeout(() => signalGroup(pid, 'SIGKILL'), KILL_GRACE_MS);
    };
    const timeout = setTimeout(() => {
      timedOut = true;
      stop();
    }, opts.timeoutMs);
    const onAbort = (): void => {
      aborted = true;
      stop();
    };
    opts.signal?.addEventListener('abort', onAbort, { once: true });

    const cleanUp = (): void => {
      clearTimeout(timeout);
      clearTimeout(killTimer);
      opts.signal?.removeEventListener('abort', onAbort);
    };

    child.on('error', (error) => {
      if (pid !== undefined) return; // a started process reports through 'exit'; kill errors are moot
      cleanUp();
      reject(new ToolError(`could not start the command: ${error.message}`));
    });

    child.once('exit', (exitCode, signal) => {
      cleanUp();
      // Background children must not outlive the call, nor keep our pipes open.
      if (pid !== undefined) signalGroup(pid, 'SIGKILL');
      let finished = false;
      const finish = (): void => {
        if (finished) return;
        finished = true;
        clearTimeout(drain);
        child.stdout.destroy();
        child.stderr.destroy();
        output.end();
        resolve({ exitCode, signal, timedOut, aborted, output: output.toString() });
      };
      const drain = setTimeout(finish, DRAIN_MS);
      child.once('close', finish);
    });
  });
}

/** A call without its own timeout gets this many seconds (or the ceiling, if that is lower). */
export const DEFAULT_CALL_SECONDS = 120;

/** Runs the command with pipefail, so a failure anywhere in a pipeline (`npm test | tail`) is its status. */
export const withPipefail = (command: string): string =>
  `(set -o pipefail) 2>/dev/null && set -o pipefail; ${command}`;

export function describeResult(result: CommandResult, timeoutSeconds: number, timeoutHint = ''): string {
  const status = result.timedOut
    ? `timed out after ${timeoutSeconds} s; process group killed${timeoutHint}`
    : result.aborted
      ? 'aborted (the run was cancelled); process group killed'
      : result.exitCode !== null
        ? `exit code: ${result.exitCode}`
        : `killed by signal ${result.signal ?? 'unknown'}`;
  return `${status}\n${result.output.length > 0 ? result.output : '(no output)'}`;
}

/** The bash tool for a run whose calls may last at most `maxSeconds` (the bash_timeout setting). */
export function createBashTool(maxSeconds: number) {
  const defaultSeconds = Math.min(DEFAULT_CALL_SECONDS, maxSeconds);
  const input = z.object({
    command: z
      .string()
      .describe('The command, run with bash -c in the repository root, e.g. "npm test 2>&1 | tail -n 60"'),
    timeout: z
      .number()
      .int()
      .positive()
      .max(
        maxSeconds,
        `at most ${maxSeconds} seconds (this run's bash_timeout); split the work into smaller steps`,
      )
      .optional()
      .describe(`Seconds before the command is killed (default ${defaultSeconds}, at most ${maxSeconds})`),
  });
  const tool: Tool<typeof input> = {
    name: 'bash',
    description:
      'Run a shell command with bash -c in the repository root and return its exit code and output ' +
      '(stdout and stderr merged). Non-interactive: stdin is closed, no terminal, no credentials. Each ' +
      'call starts a fresh shell (cd and exports do not carry over). pipefail is on, so a pipeline fails ' +
      'when any part fails. Outputs over about 50,000 characters are cut to their first and last parts; ' +
      'trim long output yourself and keep the end, where errors are: `npm test 2>&1 | tail -n 60`, ' +
      '`grep -n pattern file | head -n 40`. A command is killed with all its children after ' +
      `${defaultSeconds} s, or after timeout seconds if you pass one (at most ${maxSeconds} s): pass a ` +
      'larger timeout for installs, builds and full test suites. Background processes are killed when ' +
      'the command ends. Independent commands can go in parallel calls in one reply.',
    inputSchema: input,
    async run({ command, timeout }, context) {
      if (command.trim() === '') throw new ToolError('command is empty');
      const ceiling = context.bashTimeoutSeconds;
      if (timeout !== undefined && timeout > ceiling) {
        throw new ToolError(
          `timeout ${timeout} is over this run's ceiling of ${ceiling} s (bash_timeout); ` +
            'use a smaller timeout, or split the work into smaller steps',
        );
      }
      const seconds = timeout ?? Math.min(DEFAULT_CALL_SECONDS, ceiling);
      const result = await runCommand(withPipefail(command), {
        cwd: context.workspace,
        env: context.env,
        timeoutMs: seconds * 1000,
        ...(context.signal ? { signal: context.signal } : {}),
      });
      const hint =
        seconds < ceiling
          ? `. Run it again with a larger timeout (up to ${ceiling}), or in smaller steps`
          : '. That is the most this run allows (bash_timeout): run it in smaller steps (one package, one test file)';
      return describeResult(result, seconds, hint);
    },
  };
  return tool;
}
