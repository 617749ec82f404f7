// The action's entry. It loads only what the first sign of life needs (action/start.ts: the settings, the
// event, the 👀 sent at once), waits for the 👀 to leave (loading the rest would hold the socket's write until
// it is done, at most LEAVE_MS), and then loads the rest of the action (dist/main.js, scripts/build.mjs).
import { setTimeout as sleep } from 'node:timers/promises';
import { readStart } from './action/start.js';
import { traced, traceStep } from './runner/trace.js';

/** How long the 👀 may hold the rest of the action before it leaves (a slow TLS handshake, say). */
const LEAVE_MS = 300;

traceStep('node started, dist/index.js loaded', 0);
const start = traced('settings and event read', readStart(process.env));
start.then(
  (s) => s.eyes && traced('👀 sent (its request written)', s.eyes.sent, 0),
  () => undefined, // main.ts reports it
);
start.catch(() => undefined); // main.ts awaits it and reports the failure
await Promise.race([start.then((s) => s.eyes?.sent), sleep(LEAVE_MS, undefined, { ref: false })]).catch(
  () => undefined,
);
const loading = performance.now();
const { run } = await import('./action/main.js');
traceStep('dist/main.js loaded', loading);
await run(start);
