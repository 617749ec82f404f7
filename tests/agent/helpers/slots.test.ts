import { describe, expect, it } from 'vitest';
import { Slots } from '../../../src/agent/helpers/slots.js';

/** Resolves once every callback queued so far has run. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('Slots', () => {
  it('lets explorers run side by side up to the limit, and the next one in when one ends', async () => {
    const slots = new Slots(2);
    const granted: string[] = [];
    const take = (name: string) => slots.take('explore').then((release) => (granted.push(name), release));
    const [a, b, c] = [take('a'), take('b'), take('c')];
    await settle();
    expect(granted).toEqual(['a', 'b']);
    expect(slots.running).toEqual({ explorers: 2, editing: false });
    (await a)();
    await settle();
    expect(granted).toEqual(['a', 'b', 'c']);
    (await b)();
    (await c)();
    expect(slots.running).toEqual({ explorers: 0, editing: false });
  });

  it('runs an edit helper alone, and serves waiters in the order they asked', async () => {
    const slots = new Slots(3);
    const granted: string[] = [];
    const take = (name: string, kind: 'explore' | 'edit') =>
      slots.take(kind).then((release) => (granted.push(name), release));
    const first = take('explore-1', 'explore');
    const edit = take('edit', 'edit');
    const later = take('explore-2', 'explore');
    await settle();
    // The edit waits for the explorer; the later explorer does not pass the waiting edit.
    expect(granted).toEqual(['explore-1']);
    (await first)();
    await settle();
    expect(granted).toEqual(['explore-1', 'edit']);
    expect(slots.running).toEqual({ explorers: 0, editing: true });
    const release = await edit;
    release();
    release(); // a second release frees nothing more
    await settle();
    expect(granted).toEqual(['explore-1', 'edit', 'explore-2']);
    (await later)();
    expect(slots.running).toEqual({ explorers: 0, editing: false });
  });

  it('refuses a limit below one', () => {
    expect(() => new Slots(0)).toThrow(RangeError);
  });
});
