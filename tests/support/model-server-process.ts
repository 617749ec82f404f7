// Entry point of a child process that runs the scripted model server on its own, so that the server's work
// (parsing, validating, token counting, cache hashing) and its garbage stay off the event loop and heap of
// the process being measured. Measure 2 of `npm run bench` starts it through `startModelServerProcess`:
//
//   node --import tsx tests/support/model-server-process.ts <script kind> <turns>
//
// with an IPC channel. The script is built here from the arguments, since a script holds functions, which
// can't cross processes; the API key to require comes in MODEL_SERVER_API_KEY. Over IPC it sends `ready`
// with the URL and answers `report` with what the server saw (bench-server-process.ts has the types). It
// exits when the parent closes the channel or dies.
import diagnostics from 'node:diagnostics_channel';
import type { IncomingMessage } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { ScriptStep } from './anthropic-server.js';
import { startModelServer } from './anthropic-server.js';
import { loopScript } from './bench-scripts.js';
import type { ChildMessage, ParentMessage, ScriptKind } from './bench-server-process.js';

const SCRIPTS: Record<ScriptKind, (turns: number) => ScriptStep[]> = { loop: loopScript };

function scriptFrom(args: readonly string[]): ScriptStep[] {
  const [kind, turns] = args;
  if (kind === undefined || !Object.hasOwn(SCRIPTS, kind))
    throw new Error(`model-server-process: unknown script kind ${kind}`);
  return SCRIPTS[kind as ScriptKind](Number(turns));
}

/**
 * Per `/v1/messages` request, ms from its headers being parsed to the last byte of the answer written, from
 * Node's built-in http server channels. This includes reading the body, so it overlaps the client's sending.
 */
function timeHandling(): number[] {
  const handling: number[] = [];
  const started = new WeakMap<object, number>();
  const isMessages = (request: IncomingMessage) => request.url?.split('?')[0] === '/v1/messages';
  diagnostics.subscribe('http.server.request.start', (message) => {
    const { request } = message as { request: IncomingMessage };
    if (isMessages(request)) started.set(request, performance.now());
  });
  diagnostics.subscribe('http.server.response.finish', (message) => {
    const { request } = message as { request: IncomingMessage };
    const start = started.get(request);
    if (start !== undefined) handling.push(performance.now() - start);
  });
  return handling;
}

function send(message: ChildMessage): void {
  process.send?.(message);
}

if (!process.send) throw new Error('model-server-process: start me with an IPC channel (child_process.fork)');
const handlingMs = timeHandling();
const server = await startModelServer(scriptFrom(process.argv.slice(2)), {
  apiKey: process.env.MODEL_SERVER_API_KEY,
});
const cpuAtStart = process.cpuUsage();

process.on('message', (message: ParentMessage) => {
  if (message.type !== 'report') return;
  const cpu = process.cpuUsage(cpuAtStart);
  const last = server.requests.at(-1);
  send({
    type: 'report',
    requests: server.requests.length,
    remaining: server.remaining(),
    violations: server.violations,
    cpuMs: (cpu.user + cpu.system) / 1000,
    handlingMs,
    lastBodyBytes: last ? Buffer.byteLength(JSON.stringify(last.body)) : 0,
  });
});
// The parent closed the channel or died: nothing is left to serve.
process.on('disconnect', () => {
  void server.close().finally(() => process.exit(0));
});
send({ type: 'ready', url: server.url });
