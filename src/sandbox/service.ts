// A program that lives for the whole run (an MCP server) rather than for one call: started as a command is
// (run-command.ts), inside the sandbox when there is one (the tools' identity, namespaces, limits and
// network, as PID 1 of a PID namespace of its own), with its stdin, stdout and stderr left to the caller,
// and stopped however the run ends: asked first (its stdin closed), then killed with everything it started.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import type { Sandbox, SandboxCall } from './namespaces.js';

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

/** Signals every process in the group led by `pid`; a group that is already gone is fine. */
function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // ESRCH: nothing left in the group (or nothing this process may signal)
  }
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
