// Entry point of a child process that runs the scripted model server on its own, so that the server's work
// (parsing, validating, token counting, cache hashing) and its garbage stay off the event loop and heap of
// the process being measured. Measure 2 of `npm run bench` starts it through `startModelServerProcess`
// (bench/server-process.ts, which also has the message types) as `node --import tsx` with an IPC channel.
//
// It says `up`, then for each `serve` (script kind and turn count) closes the previous server and starts a
// new one with that script, built here because a script holds functions, which can't cross processes; it
// answers with `ready` and the URL. It answers `report` with what the current server saw. The API key to
// require comes in MODEL_SERVER_API_KEY. It exits when the parent closes the channel or dies.
import diagnostics from 'node:diagnostics_channel';
import type { IncomingMessage } from 'node:http';
import { performance } from 'node:perf_hooks';
import { startModelServer, type ScriptedModelServer, type ScriptStep } from './server.js';
import { loopScript } from '../bench/scripts.js';
import type { ChildMessage, ParentMessage, ScriptKind } from '../bench/server-process.js';

const SCRIPTS: Record<ScriptKind, (turns: number) => ScriptStep[]> = { loop: loopScript };

/** When the current server's requests started (headers parsed) and finished (last byte written). */
let timings = { startedAt: [] as number[], finishedAt: [] as number[] };
let server: ScriptedModelServer | undefined;
let cpuAtStart = process.cpuUsage();

function send(message: ChildMessage): void {
  process.send?.(message);
}

/**
 * Request start and response finish for `/v1/messages`, from Node's built-in http server channels. One
 * request at a time, so the n-th start and finish belong to the n-th request.
 */
function watchHttp(): void {
  const isMessages = (request: IncomingMessage) => request.url?.split('?')[0] === '/v1/messages';
  diagnostics.subscribe('http.server.request.start', (message) => {
    if (isMessages((message as { request: IncomingMessage }).request))
      timings.startedAt.push(performance.now());
  });
  diagnostics.subscribe('http.server.response.finish', (message) => {
    if (isMessages((message as { request: IncomingMessage }).request))
      timings.finishedAt.push(performance.now());
  });
}

async function serve(kind: ScriptKind, turns: number): Promise<void> {
  if (!Object.hasOwn(SCRIPTS, kind)) throw new Error(`unknown script kind ${kind}`);
  await server?.close();
  timings = { startedAt: [], finishedAt: [] };
  server = await startModelServer(SCRIPTS[kind](turns), {
    apiKey: process.env.MODEL_SERVER_API_KEY,
  });
  cpuAtStart = process.cpuUsage();
  send({ type: 'ready', url: server.url });
}

function report(current: ScriptedModelServer): void {
  const cpu = process.cpuUsage(cpuAtStart);
  const { startedAt, finishedAt } = timings;
  send({
    type: 'report',
    requests: current.requests.length,
    remaining: current.remaining(),
    violations: current.violations,
    cpuMs: (cpu.user + cpu.system) / 1000,
    handlingMs: finishedAt.map((end, i) => end - startedAt[i]!),
    bodyBytes: current.requests.map((request) => Buffer.byteLength(JSON.stringify(request.body))),
  });
}

if (!process.send) throw new Error('model-server-process: start me with an IPC channel (child_process.fork)');
watchHttp();
process.on('message', (message: ParentMessage) => {
  const fail = (error: unknown) => send({ type: 'failed', message: String(error) });
  if (message.type === 'serve') serve(message.kind, message.turns).catch(fail);
  else if (message.type === 'report') {
    if (server) report(server);
    else fail('report asked before any serve');
  }
});
// The parent closed the channel or died: nothing is left to serve.
process.on('disconnect', () => {
  void (server?.close() ?? Promise.resolve()).finally(() => process.exit(0));
});
send({ type: 'up' });
