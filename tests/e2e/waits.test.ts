// Issue 20: nothing before the first model request waits for the 👀 or the checklist comment. Each test holds
// GitHub's answer to one write and shows the model asked while that answer was still held: an order of
// recorded requests, not a time.
import { afterEach, describe, expect, it } from 'vitest';
import { HELLO_TASK, helloScript } from '../support/anthropic/scenarios.js';
import { createWorld, type World } from './setup.js';

let world: World | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

/** Resolves once `ready()` holds, checking every 20 ms, or fails after `ms`. */
async function until(ready: () => boolean, what: string, ms = 30_000): Promise<void> {
  for (const end = Date.now() + ms; !ready();) {
    if (Date.now() > end) throw new Error(`gave up waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe.each([
  ['the checklist comment', { method: 'POST', path: /\/issues\/1\/comments$/ }],
  ['the 👀 reaction', { method: 'POST', path: /\/issues\/comments\/\d+\/reactions$/ }],
])('the first model request does not wait for %s', (_name, match) => {
  it('is sent while GitHub has not yet answered that write, and the run still completes', async () => {
    world = await createWorld(helloScript());
    const w = world;
    const release = w.github.holdNext(match);
    const run = w.trigger(`/agent ${HELLO_TASK}`);
    const held = () => w.github.calls.filter((c) => c.method === match.method && match.path.test(c.path));
    // Had the model's first request waited for the answer, it would not come while the answer is held.
    await until(() => held().length > 0 && w.model.requests.length > 0, 'the write and a model request');
    const [write] = held();
    expect(write!.answeredAt).toBe(0);
    release();
    const result = await run;
    expect(result.code).toBe(0);
    expect(result.outputs.status).toBe('completed');
    expect(w.github.violations).toEqual([]);
    expect(w.model.violations).toEqual([]);
    // The held write was the first of its kind, and answered after the model was first asked.
    expect(held()[0]).toBe(write);
    expect(write!.answeredAt).toBeGreaterThanOrEqual(w.model.requests[0]!.receivedAt);
  });
});
