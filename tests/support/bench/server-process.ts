// Runs the scripted model server in a child process (anthropic/server-process.ts) and talks to it over IPC, so
// the bench can time a client whose event loop and heap hold nothing of the server's. One child serves a
// whole measure, a fresh server per run, so the server's code is as warm in the tenth run as in the last.
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { ROOT } from '../action-harness.js';

/** Scripts the child can build; see anthropic/server-process.ts. */
export type ScriptKind = 'loop';

/** What the server saw since it was started, sent by the child when asked. */
export interface ServerReport {
  /** `/v1/messages` requests received. */
  requests: number;
  /** Script steps never played. */
  remaining: number;
  violations: { index: number; message: string }[];
  /** CPU time of the whole child (user + system, all threads) since the server started. */
  cpuMs: number;
  /** Per request, from its headers parsed to the answer's last byte written (body reading included). */
  handlingMs: number[];
  /** Size of each request body, re-serialised, in order. */
  bodyBytes: number[];
}

export type ChildMessage =
  | { type: 'up' }
  | { type: 'ready'; url: string }
  | ({ type: 'report' } & ServerReport)
  | { type: 'failed'; message: string };
export type ParentMessage = { type: 'serve'; kind: ScriptKind; turns: number } | { type: 'report' };

export interface ModelServerProcess {
  /** Closes the previous server, if any, and starts one with a fresh script; resolves with its URL. */
  serve(kind: ScriptKind, turns: number): Promise<string>;
  /** What the current server saw. */
  report(): Promise<ServerReport>;
  /** Kills the child and waits until it is gone; safe to call twice. */
  close(): Promise<void>;
}

const ENTRY = fileURLToPath(new URL('../anthropic/server-process.ts', import.meta.url));
/** Starting node with tsx takes well under a second; this only stops a broken child from hanging the bench. */
const REPLY_TIMEOUT_MS = 30_000;

function gone(child: ChildProcess): boolean {
  return child.exitCode !== null || child.signalCode !== null;
}

async function kill(child: ChildProcess): Promise<void> {
  if (child.pid === undefined || gone(child)) return; // never started, or already ended
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGKILL');
  await exited;
}

/**
 * The child's next message of `type`. Rejects if it reports a failure, exits, or stays silent for
 * `REPLY_TIMEOUT_MS`.
 */
function nextMessage<T extends ChildMessage['type']>(
  child: ChildProcess,
  type: T,
): Promise<Extract<ChildMessage, { type: T }>> {
  return new Promise((resolve, reject) => {
    const done = (): void => {
      clearTimeout(timer);
      child.off('message', onMessage);
      child.off('exit', onExit);
      child.off('error', onError);
    };
    const onMessage = (message: ChildMessage): void => {
      if (message.type === 'failed') {
        done();
        reject(new Error(`model server process: ${message.message}`));
      } else if (message.type === type) {
        done();
        resolve(message as Extract<ChildMessage, { type: T }>);
      }
    };
    const onExit = (code: number | null, signal: string | null): void => {
      done();
      reject(new Error(`model server process exited (${signal ?? code}) before sending '${type}'`));
    };
    const onError = (error: Error): void => {
      done();
      reject(error);
    };
    const timer = setTimeout(() => {
      done();
      reject(new Error(`model server process sent no '${type}' within ${REPLY_TIMEOUT_MS} ms`));
    }, REPLY_TIMEOUT_MS);
    child.on('message', onMessage);
    child.once('exit', onExit);
    child.once('error', onError);
  });
}

/** Starts the child (`node --import tsx`), which serves nothing until `serve` is called. */
export function startModelServerProcess(apiKey: string): ModelServerProcess {
  const child = fork(ENTRY, [], {
    cwd: ROOT,
    execArgv: ['--import', 'tsx'],
    env: { ...process.env, MODEL_SERVER_API_KEY: apiKey },
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  // A message sent before the child listens would be lost, so wait for its first word.
  const up = nextMessage(child, 'up');
  up.catch(() => {}); // reported by the first `ask`
  const ask = async <T extends ChildMessage['type']>(message: ParentMessage, reply: T) => {
    await up;
    if (!child.connected) throw new Error('model server process: the child is gone');
    const answer = nextMessage(child, reply);
    child.send(message);
    return await answer;
  };
  return {
    serve: async (kind, turns) => (await ask({ type: 'serve', kind, turns }, 'ready')).url,
    report: async () => {
      const { type: _type, ...report } = await ask({ type: 'report' }, 'report');
      return report;
    },
    close: () => kill(child),
  };
}
