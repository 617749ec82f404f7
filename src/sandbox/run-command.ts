// Everything a model makes run starts here: one shell command, in its own process group, inside the
// sandbox when one is given (sandbox-namespaces.ts), with bounded output.
import { spawn } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import path from 'node:path';
import { CappedOutput, COMMAND_OUTPUT_HINT, DEFAULT_OUTPUT_LIMIT, type Redaction } from './capped-output.js';
import type { Sandbox } from './namespaces.js';
import { limitNote } from './limits.js';

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
  /** Redacts the output across its cuts, so no secret is kept in halves. */
  redaction?: Redaction;
  /** Absent: the command runs directly (`sandbox: off`, or a CLI where none can be built). */
  sandbox?: Sandbox;
  /**
   * `false`: none of the network's settings for the call (no proxy, not told it is off), only the tools'
   * environment: the network gate's look at the toolchains' own settings.
   */
  networkEnv?: boolean;
}

export interface CommandResult {
  /** null when the shell was ended by a signal. */
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  aborted: boolean;
  /** stdout and stderr merged, capped (and redacted, given a redaction). */
  output: string;
}

/** bash from the command's PATH (or the usual places), else /bin/sh. */
export function findShell(env: NodeJS.ProcessEnv): string {
  return findProgram('bash', env.PATH) ?? '/bin/sh';
}

/** The first executable `name` in `searchPath`'s absolute directories, then /bin and /usr/bin. */
export function findProgram(name: string, searchPath = ''): string | undefined {
  const dirs = [...searchPath.split(path.delimiter), '/usr/sbin', '/usr/bin', '/sbin', '/bin'].filter((dir) =>
    path.isAbsolute(dir),
  );
  for (const dir of dirs) {
    const candidate = path.join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here; keep looking
    }
  }
  return undefined;
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
    const output = new CappedOutput(opts.limit ?? DEFAULT_OUTPUT_LIMIT, opts.redaction, COMMAND_OUTPUT_HINT);
    const shell = findShell(opts.env);
    const started = Date.now();
    const call = opts.sandbox?.call(shell, command, {
      cwd: opts.cwd,
      env: opts.env,
      ...(opts.networkEnv === false ? { networkEnv: false } : {}),
    }) ?? { argv: [shell, '-c', command], env: opts.env };
    const [program, ...args] = call.argv;
    const child = spawn(program as string, args, {
      cwd: opts.cwd,
      env: call.env,
      ...call.identity,
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
      reject(new Error(`could not start the command: ${error.message}`));
    });

    child.once('exit', (exitCode, signal) => {
      cleanUp();
      // Background children must not outlive the call, nor keep our pipes open. In the sandbox they are
      // already gone: the namespace died with its first process.
      if (pid !== undefined) signalGroup(pid, 'SIGKILL');
      let finished = false;
      const finish = (): void => {
        if (finished) return;
        finished = true;
        clearTimeout(drain);
        child.stdout.destroy();
        child.stderr.destroy();
        output.end();
        const text = output.toString();
        const refused = opts.sandbox?.network?.refusedSince(started) ?? [];
        const note = opts.sandbox
          ? limitNote(text, opts.sandbox.config.network, exitCode !== 0, refused)
          : '';
        resolve({ exitCode, signal, timedOut, aborted, output: note ? `${text}\n${note}` : text });
      };
      const drain = setTimeout(finish, DRAIN_MS);
      child.once('close', finish);
    });
  });
}
