// Starts the scripted model server in a child process (model-server-process.ts) and talks to it over IPC,
// so the bench can time a client whose event loop and heap hold nothing of the server's.
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { ROOT } from './action-harness.js';

/** Scripts the child can build; see model-server-process.ts. */
export type ScriptKind = 'loop';

/** What the server saw, sent by the child when asked. */
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
  /** Size of the last request body, re-serialised. */
  lastBodyBytes: number;
}

export type ChildMessage = { type: 'ready'; url: string } | ({ type: 'report' } & ServerReport);
export type ParentMessage = { type: 'report' };

export interface ModelServerProcess {
  url: string;
  report(): Promise<ServerReport>;
  /** Kills the child and waits until it is gone; safe to call twice. */
  close(): Promise<void>;
}

const ENTRY = fileURLToPath(new URL('./model-server-process.ts', import.meta.url));
/** Starting node with tsx takes well under a second; this only stops a broken child from hanging the bench. */
const START_TIMEOUT_MS = 30_000;

function gone(child: ChildProcess): boolean {
  return child.exitCode !== null || child.signalCode !== null;
}

async function kill(child: ChildProcess): Promise<void> {
  if (child.pid === undefined || gone(child)) return; // never started, or already ended
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGKILL');
  await exited;
}

/** The next message of `type` from the child; rejects if the child exits or `timeoutMs` passes first. */
function nextMessage<T extends ChildMessage['type']>(
  child: ChildProcess,
  type: T,
  timeoutMs: number,
): Promise<Extract<ChildMessage, { type: T }>> {
  return new Promise((resolve, reject) => {
    const done = (): void => {
      clearTimeout(timer);
      child.off('message', onMessage);
      child.off('exit', onExit);
      child.off('error', onError);
    };
    const onMessage = (message: ChildMessage): void => {
      if (message.type !== type) return;
      done();
      resolve(message as Extract<ChildMessage, { type: T }>);
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
      reject(new Error(`model server process sent no '${type}' within ${timeoutMs} ms`));
    }, timeoutMs);
    child.on('message', onMessage);
    child.once('exit', onExit);
    child.once('error', onError);
  });
}

export async function startModelServerProcess(
  kind: ScriptKind,
  turns: number,
  apiKey: string,
): Promise<ModelServerProcess> {
  const child = fork(ENTRY, [kind, String(turns)], {
    cwd: ROOT,
    execArgv: ['--import', 'tsx'],
    env: { ...process.env, MODEL_SERVER_API_KEY: apiKey },
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  try {
    const { url } = await nextMessage(child, 'ready', START_TIMEOUT_MS);
    return {
      url,
      report: async () => {
        const reply = nextMessage(child, 'report', START_TIMEOUT_MS);
        child.send({ type: 'report' } satisfies ParentMessage);
        const { type: _type, ...report } = await reply;
        return report;
      },
      close: () => kill(child),
    };
  } catch (error) {
    await kill(child);
    throw error;
  }
}
