// One MCP server for the length of a run: started (a local one in the sandbox, sandbox/commands/run-command.ts; a remote
// one through the egress rule), its tools listed once, each call answered within the timeout, and what went
// wrong said in one sentence that names it. A server that fails stays failed: its tools answer with why.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ErrorCode, McpError, type Tool as McpTool } from '@modelcontextprotocol/sdk/types.js';
import { isLocal, type ServerConfig } from '../settings/mcp-servers.js';
import type { Sandbox } from '../sandbox/namespaces.js';
import { SNAPSHOT_MOUNT } from '../sandbox/init.js';
import { openSibling } from '../sandbox/setup.js';
import { outOfSight } from '../sandbox/runner-files.js';
import { Service, type ServiceExit } from '../sandbox/commands/run-command.js';
import { localLaunch } from './local.js';
import { CappedOutput } from '../sandbox/commands/capped-output.js';
import { ToolError, type ToolAnswer, type ToolContext } from '../agent/tools/types.js';
import { errorMessage } from '../text/error-sentence.js';
import { ServiceTransport } from './stdio.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import { connectRemote } from './remote.js';
import { toolAnswer } from './results.js';
import ownPackage from '../../package.json' with { type: 'json' };

/** Who we are to a server (`clientInfo` in `initialize`): the package's name and version. */
export const CLIENT_INFO = { name: ownPackage.name, version: ownPackage.version };

/** Why a server that was still starting when the run ended has no tools. */
const ENDED_FIRST = 'the run ended before it had started';

/** The end of a server's stderr kept for the sentence that says why it stopped. */
const STDERR_TAIL = 2_000;

export interface ConnectionOptions {
  workspace: string;
  /** The tools' sandbox: each local server gets one of its own built like it (sandbox/setup.ts openSibling). */
  sandbox?: Sandbox;
  /** The trusted snapshot's directory, made when the first local server needs it (src/git/snapshot.ts). */
  snapshot?: () => Promise<string>;
  /** The tools' environment (sandbox/commands/child-env.ts): a local server gets it and its own `env`, nothing more. */
  env: NodeJS.ProcessEnv;
  /** How long a server has to start, and to answer each call. */
  timeoutMs: number;
  /** Sends a remote server's requests: the network gate's fetch, where the run has a gate. */
  fetch?: FetchLike;
  /** One line for the log: a server left out, or one that stopped during the run. */
  warn: (line: string) => void;
}

export class Connection {
  readonly server: ServerConfig;
  readonly #options: ConnectionOptions;
  #client: Client | undefined;
  #service: Service | undefined;
  /** The local server's exit, once its stderr has been read to the end too (or a second after the exit). */
  #exited: Promise<ServiceExit> | undefined;
  /** A local server's own sandbox. */
  #sandbox: Sandbox | undefined;
  /** That sandbox while it is being built (inside the tools' sandbox's folder, which waits for it). */
  #building: Promise<unknown> = Promise.resolve();
  readonly #stderr = new CappedOutput(STDERR_TAIL);
  /** Why the server is not available (it did not start, or it stopped); undefined while it works. */
  problem: string | undefined;
  #closing = false;
  /** Started and listed: a stop from now on is a stop during the run, not a failure to start. */
  #ready = false;

  constructor(server: ServerConfig, options: ConnectionOptions) {
    this.server = server;
    this.#options = options;
  }

  get name(): string {
    return this.server.name;
  }

  /** Whether it started and listed its tools (it may have stopped since). */
  get started(): boolean {
    return this.#ready;
  }

  /** Starts the server and lists its tools; a server that cannot is left with its `problem`, never a throw. */
  async start(): Promise<McpTool[]> {
    const seconds = this.#options.timeoutMs / 1000;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((resolve) => {
      timer = setTimeout(resolve, this.#options.timeoutMs, 'late');
    });
    try {
      const started = await Promise.race([this.#connectAndList(), late]);
      if (this.#closing) this.problem ??= ENDED_FIRST;
      if (started !== 'late' && !this.problem) {
        this.#ready = true;
        return started;
      }
      this.problem ??= `it did not start within ${seconds} s (mcp_timeout)`;
    } catch (error) {
      this.problem ??= this.#closing
        ? ENDED_FIRST
        : await this.#failure(`it did not start: ${failureText(error)}`);
    } finally {
      clearTimeout(timer);
    }
    await this.close();
    return [];
  }

  /** Calls one of its tools, as the model asked; throws a ToolError the model is shown. */
  async call(tool: string, input: unknown, context: ToolContext): Promise<ToolAnswer> {
    const client = this.#client;
    if (this.problem || !client) throw new ToolError(this.#unavailable());
    if (typeof input !== 'object' || input === null || Array.isArray(input))
      throw new ToolError('invalid input: the arguments must be an object');
    const { timeoutMs } = this.#options;
    let result;
    try {
      result = await client.callTool({ name: tool, arguments: input as Record<string, unknown> }, undefined, {
        timeout: timeoutMs,
        maxTotalTimeout: timeoutMs,
        ...(context.signal ? { signal: context.signal } : {}),
      });
    } catch (error) {
      throw new ToolError(await this.#callFailure(error, tool));
    }
    return await toolAnswer(result as Parameters<typeof toolAnswer>[0], this.name, context.redaction);
  }

  /** Stops the server: a local one's process is asked to exit, then killed with everything it started. */
  async close(): Promise<void> {
    this.#closing = true;
    const client = this.#client;
    this.#client = undefined;
    await client?.close().catch(() => undefined);
    await this.#service?.stop();
    this.#sandbox?.close();
  }

  /** Once no sandbox of its own is being built: one that was, after a close, is closed by then. */
  async built(): Promise<void> {
    await this.#building.catch(() => undefined);
  }

  /** Kills a local server at once (the action is exiting and cannot wait). */
  kill(): void {
    this.#service?.kill();
    this.#sandbox?.close();
  }

  async #connectAndList(): Promise<McpTool[]> {
    const makeClient = (): Client => new Client(CLIENT_INFO);
    const { timeoutMs } = this.#options;
    if (isLocal(this.server)) {
      const { workspace, snapshot } = this.#options;
      const host = await snapshot?.();
      if (this.#closing) return [];
      const building = this.#options.sandbox && openSibling(this.#options.sandbox, host);
      this.#building = building ?? this.#building;
      const sandbox = await building;
      this.#sandbox = sandbox;
      // Stopped while its sandbox was being built (it was late): nothing more starts.
      if (this.#closing) {
        sandbox?.close();
        return [];
      }
      const view = host ? { host, seen: sandbox ? SNAPSHOT_MOUNT : host } : undefined;
      const launch = localLaunch(this.server, workspace, view);
      const service = Service.start(launch.argv, {
        cwd: launch.cwd,
        env: { ...this.#options.env, ...this.server.env, ...launch.env },
        ...(sandbox ? { sandbox } : {}),
      });
      this.#service = service;
      service.stderr.on('data', (chunk: Buffer) => this.#stderr.write(chunk));
      // The exit can come before the last of stderr is read (under load): the sentence waits for both.
      const drained = new Promise<void>((resolve) => service.stderr.once('close', resolve));
      this.#exited = service.exited.then(async (exit) => {
        await Promise.race([drained, new Promise((resolve) => setTimeout(resolve, 1_000).unref())]);
        return exit;
      });
      void this.#exited.then((exit) => this.#lost(exit));
      const client = makeClient();
      this.#client = client;
      await client.connect(new ServiceTransport(service), { timeout: timeoutMs });
    } else {
      this.#client = await connectRemote(makeClient, this.server, timeoutMs, this.#options.fetch);
      this.#client.onclose = () => this.#lost();
    }
    const tools: McpTool[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.#client.listTools(cursor ? { cursor } : {}, { timeout: timeoutMs });
      tools.push(...page.tools);
      cursor = page.nextCursor;
    } while (cursor);
    return tools;
  }

  /** The server went away without being asked to: from now on its tools say why. */
  #lost(exit?: ServiceExit): void {
    if (this.#closing || this.problem) return;
    const what = this.#ready ? 'it stopped' : 'it exited at start';
    this.problem = exit ? this.#exitSentence(what, exit) : 'it closed the connection';
    if (this.#ready)
      this.#options.warn(
        `MCP server "${this.name}" stopped during the run: ${this.problem}; its tools answer with why.`,
      );
  }

  async #failure(fallback: string): Promise<string> {
    const exited = this.#exited;
    if (!exited) return fallback;
    // A process that failed at start is gone in a moment: its exit status and stderr say more than "closed".
    const exit = await Promise.race([
      exited,
      new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), 1_500).unref()),
    ]);
    return exit ? this.#exitSentence('it exited at start', exit) : fallback;
  }

  async #callFailure(error: unknown, tool: string): Promise<string> {
    const seconds = this.#options.timeoutMs / 1000;
    if (error instanceof McpError && error.code === ErrorCode.RequestTimeout)
      return `the MCP server "${this.name}" did not answer ${tool} within ${seconds} s (mcp_timeout); the call was cancelled`;
    if (this.problem || (error instanceof McpError && error.code === ErrorCode.ConnectionClosed)) {
      await this.#failure('');
      this.problem ??= 'it closed the connection';
      return this.#unavailable();
    }
    if (error instanceof McpError)
      return `the MCP server "${this.name}" refused the call: ${error.message.replace(/^MCP error -?\d+: /, '')}`;
    return `the MCP server "${this.name}" could not be asked: ${failureText(error)}`;
  }

  #unavailable(): string {
    return `the MCP server "${this.name}" is not available: ${this.problem ?? 'it is not connected'}; its tools cannot be used in this run`;
  }

  #exitSentence(what: string, exit: ServiceExit): string {
    const status = exit.error
      ? exit.error
      : exit.signal
        ? `killed by ${exit.signal}`
        : `exit code ${exit.code ?? 'unknown'}`;
    this.#stderr.end();
    const lines = meaningfulLines(this.#stderr.toString()).join(' | ');
    return `${what} (${status})${lines ? `: ${lines}` : ''}${this.#outOfSight()}`;
  }

  /**
   * Where the server's command or a file it names lies out of its sandbox's sight: under a directory the
   * sandbox gives it empty (/tmp), or in a path it hides (the runner's files), as the sandbox has them.
   */
  #outOfSight(): string {
    if (!this.#sandbox || !isLocal(this.server)) return '';
    const config = this.#sandbox.config;
    const paths = [this.server.command, ...this.server.args].map((arg) => arg.replace(/^--?[\w-]+=/, ''));
    for (const named of paths) {
      const where = outOfSight(config, named);
      if (!where) continue;
      const why =
        where.kind === 'own'
          ? `is under ${where.dir}, which the sandbox gives the server a new, empty one of`
          : `is ${where.dir === named ? '' : `under ${where.dir}, `}a path the sandbox hides (the runner's own files)`;
      return `; ${named} ${why}: put the server in the repository (it runs from the base commit) or install it in an earlier step where the sandbox shows it (the workspace, HOME, the tool cache)`;
    }
    return '';
  }
}

/**
 * Lines of a failing process's stderr that say nothing of why: blank ones, stack frames, a lone brace or caret,
 * the fields of a Node error object, the `throw` line Node echoes and the `Node.js v…` line it ends with.
 */
const NOISE =
  /^\s*$|^\s+at\s|^[\s{}()[\]^,;]*$|^Node\.js v\d|^node:internal\/|^\s*throw \w+;$|^\s+\w+: (?:'[^']*'|"[^"]*"|\[.*\]|-?\d+|true|false|null|undefined),?$/;

/** The last `count` lines of a process's stderr that say why it failed (its own noise left out). */
export function meaningfulLines(stderr: string, count = 3): string[] {
  return stderr
    .split('\n')
    .filter((line) => !NOISE.test(line))
    .map((line) => line.trim())
    .slice(-count);
}

/** An error's sentence, with the HTTP status a remote server answered with (the SDK keeps it apart). */
function failureText(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  const status = typeof code === 'number' && code >= 100 && code < 600 ? ` (HTTP ${code})` : '';
  // Node's fetch says only "fetch failed"; its cause says what failed (ECONNREFUSED 127.0.0.1:8080).
  const cause = (error as { cause?: unknown }).cause;
  const why = cause instanceof Error && errorMessage(error) === 'fetch failed' ? ` (${cause.message})` : '';
  return `${errorMessage(error).replace(/\.$/, '')}${why}${status}`;
}
