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

describe('after the model (issue 20: at most 4 round trips in a row)', () => {
  it('sends the 🚀 beside the final checklist write, not after it', async () => {
    world = await createWorld(helloScript());
    const w = world;
    const releasePull = w.github.holdNext({ method: 'POST', path: /\/pulls$/ });
    const run = w.trigger(`/agent ${HELLO_TASK}`);
    const pull = () => w.github.calls.find((c) => c.method === 'POST' && /\/pulls$/.test(c.path));
    await until(() => pull() !== undefined, 'the pull request');
    // From here on the only checklist write is the final one (the writer holds its own since the model ended).
    const releaseFinal = w.github.holdNext({ method: 'PATCH', path: /\/issues\/comments\/\d+$/ });
    releasePull();
    const final = () => w.github.calls.find((c) => c.method === 'PATCH' && c.at >= pull()!.answeredAt);
    const rocket = () =>
      w.github.calls.find((c) => c.method === 'POST' && /\/reactions$/.test(c.path) && c.at >= pull()!.at);
    // Had the reaction waited its turn behind the final write, it would not come while that write is held.
    await until(() => final() !== undefined && rocket() !== undefined, 'the final write and the reaction');
    expect(final()!.answeredAt).toBe(0);
    releaseFinal();
    const result = await run;
    expect(result.outputs.status).toBe('completed');
    expect(rocket()!.body).toEqual({ content: 'rocket' });
    expect(w.botComments()[0]!.body).toMatch(/^### ✅ todo-agent finished: /);
    expect(w.github.violations).toEqual([]);
  });

  it('makes the branch for the signed commit during the model’s last turn, before its last answer', async () => {
    // A model that takes a while over each answer, as a real one does: the branch is made meanwhile.
    const latencyMs = 500;
    world = await createWorld(helloScript(), { latencyMs });
    const result = await world.trigger(`/agent ${HELLO_TASK}`);
    expect(result.outputs.status).toBe('completed');
    const createRef = world.github.calls.filter((c) => c.operationId === 'git/create-ref');
    expect(createRef).toHaveLength(1);
    const lastRequest = world.model.requests.at(-1)!;
    // Asked for once the model had completed its list (the last request carries that look) and while the
    // model was still writing its last answer: that round trip is off the path after the model.
    expect(createRef[0]!.at).toBeGreaterThan(world.model.requests.at(-2)!.receivedAt);
    expect(createRef[0]!.at).toBeLessThan(lastRequest.receivedAt + latencyMs);
    const head = world.github.state.pulls[0]!.head;
    expect(createRef[0]!.body).toMatchObject({ ref: `refs/heads/${head}` });
    expect(world.github.violations).toEqual([]);
  });
});
