// Everything a model makes run starts here, in its own process group, inside the sandbox when one is given
// (namespaces.ts): one shell command, with bounded output; or a program that lives for the whole run (an MCP
// server) rather than for one call, its stdin, stdout and stderr left to the caller, stopped however the run
// ends: asked first (its stdin closed), then killed with everything it started.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import { accessSync, constants } from 'node:fs';
import path from 'node:path';
import { CappedOutput, COMMAND_OUTPUT_HINT, DEFAULT_OUTPUT_LIMIT, type Redaction } from './capped-output.js';
import type { Sandbox, SandboxCall } from '../namespaces.js';
import { limitNote } from '../limits.js';

/** Between SIGTERM and SIGKILL when a command times out or is aborted. */
const KILL_GRACE_MS = 1_000;
/**
 * After the shell exits (and its process group is killed), how long to wait for its pipes to close before
 * giving up on them: only a process that left the group can hold them open longer. The output still in the
 * pipes is read first, and on a loaded runner that can take far more than a moment (a command's whole output
 * was lost at 200 ms with two cores at load 25).
 */
const DRAIN_MS = 5_000;

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
   * environment: the network gate's question to the toolchains (src/network/discover.ts).
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

/**
 * Runs `command` with `bash -c`; resolves with whatever happened, rejects only if it cannot start. In a
 * sandbox whose network is still being decided it starts at once all the same: the gate answers what the
 * list known so far decides, and holds only a request that needs the toolchains' answers (src/network/gate.ts).
 */
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
          ? limitNote(text, opts.sandbox.config.network, exitCode !== 0, refused, opts.sandbox.config.names)
          : '';
        resolve({ exitCode, signal, timedOut, aborted, output: note ? `${text}\n${note}` : text });
      };
      const drain = setTimeout(finish, DRAIN_MS);
      child.once('close', finish);
    });
  });
}

/** How long a service has to exit once its stdin is closed before it is killed. */
export const STOP_GRACE_MS = 500;

export interface ServiceOptions {
  cwd: string;
  /** Its whole environment (the tools' one and what its configuration adds). */
  env: NodeJS.ProcessEnv;
  /** Absent: the program runs directly (`sandbox: off`, or a CLI where none can be built). */
  sandbox?: Sandbox;
}

export interface ServiceExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** Why it could not start at all (spawn's error), if that is why it ended. */
  error?: string;
}

export class Service {
  readonly stdin: Writable;
  readonly stdout: Readable;
  readonly stderr: Readable;
  /** Resolves once the process has exited (never rejects). */
  readonly exited: Promise<ServiceExit>;
  readonly #child: ChildProcessWithoutNullStreams;
  #done = false;
  /** Kills what is left if the action exits without stopping it (an uncaught error, process.exit). */
  readonly #onExit = (): void => this.kill();

  private constructor(child: ChildProcessWithoutNullStreams) {
    this.#child = child;
    this.stdin = child.stdin;
    this.stdout = child.stdout;
    this.stderr = child.stderr;
    this.exited = new Promise<ServiceExit>((resolve) => {
      child.once('error', (error) => {
        if (child.pid === undefined) resolve({ code: null, signal: null, error: error.message });
      });
      child.once('exit', (code, signal) => resolve({ code, signal }));
    }).then((exit) => {
      this.#done = true;
      process.off('exit', this.#onExit);
      // Whatever it left behind goes too (in the sandbox it already went with its namespace).
      if (child.pid !== undefined) signalGroup(child.pid, 'SIGKILL');
      return exit;
    });
    // A write to a service that is gone must not throw out of the event loop: its exit says why.
    child.stdin.on('error', () => undefined);
    process.once('exit', this.#onExit);
  }

  /** Starts `argv` (its program looked up in the environment's PATH); `exited` tells if it could not. */
  static start(argv: readonly string[], opts: ServiceOptions): Service {
    // The sandbox adds what its network needs (the gate's proxy, or word that the network is off).
    const env = { ...opts.env };
    const call: SandboxCall = opts.sandbox?.exec(argv, { cwd: opts.cwd, env }) ?? { argv: [...argv], env };
    const [program, ...args] = call.argv;
    const child = spawn(program as string, args, {
      cwd: opts.cwd,
      env: call.env ?? env,
      ...call.identity,
      detached: true, // its own process group, so one kill reaches every process it started
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    return new Service(child);
  }

  get running(): boolean {
    return !this.#done;
  }

  /** Closes its stdin (the MCP way to ask a stdio server to exit), and kills it if it has not after `graceMs`. */
  async stop(graceMs = STOP_GRACE_MS): Promise<ServiceExit> {
    if (!this.#done) {
      this.#child.stdin.end();
      const timer = setTimeout(() => this.kill(), graceMs);
      await this.exited;
      clearTimeout(timer);
    }
    this.#child.stdout.destroy();
    this.#child.stderr.destroy();
    return await this.exited;
  }

  /**
   * Kills it now, with everything it started: in the sandbox, the process that holds its PID namespace goes,
   * and the kernel takes every process in that namespace with it, a server that ignores SIGTERM included.
   */
  kill(): void {
    const pid = this.#child.pid;
    if (pid !== undefined && !this.#done) signalGroup(pid, 'SIGKILL');
  }
}
