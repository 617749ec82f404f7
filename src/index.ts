// The action's entry. It loads only what the first sign of life needs (action/start.ts: the settings, the
// event, the 👀 sent at once) and then the rest of the action, so that the 👀 does not wait for the bundle.
import { readStart } from './action/start.js';

const start = readStart(process.env);
start.catch(() => undefined); // main.ts awaits it and reports the failure
const { run } = await import('./action/main.js');
await run(start);
