// The action's entry. It loads only what the first sign of life needs (action/start.ts: the settings, the
// event, the 👀 sent at once), waits for the 👀 to leave (loading the rest would hold the socket's write until
// it is done, at most LEAVE_MS), and then loads the rest of the action (dist/main.js, scripts/build.mjs).
import { setTimeout as sleep } from 'node:timers/promises';
import { readStart } from './action/start.js';

/** How long the 👀 may hold the rest of the action before it leaves (a slow TLS handshake, say). */
const LEAVE_MS = 300;

const start = readStart(process.env);
start.catch(() => undefined); // main.ts awaits it and reports the failure
await Promise.race([start.then((s) => s.eyes?.sent), sleep(LEAVE_MS, undefined, { ref: false })]).catch(
  () => undefined,
);
const { run } = await import('./action/main.js');
await run(start);
