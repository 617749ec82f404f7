import { describe, expect, it } from 'vitest';
import { WritePacer } from '../../src/github/write-pacer.js';

describe('WritePacer', () => {
  it('runs writes one at a time, each starting at least the gap after the previous one ended', async () => {
    const pacer = new WritePacer(40);
    const spans: Array<{ start: number; end: number }> = [];
    let inFlight = 0;
    let maxInFlight = 0;
    const write = (ms: number) => async () => {
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      const start = Date.now();
      await new Promise((done) => setTimeout(done, ms));
      spans.push({ start, end: Date.now() });
      inFlight--;
    };
    await Promise.all([pacer.run(write(5)), pacer.run(write(15)), pacer.run(write(1)), pacer.run(write(1))]);
    expect(maxInFlight).toBe(1);
    for (let i = 1; i < spans.length; i++) {
      // setTimeout may fire a millisecond early; the gap is a rule, not a speed.
      expect(spans[i]!.start - spans[i - 1]!.end).toBeGreaterThanOrEqual(39);
    }
  });

  it('keeps going after a failed write, and reports the failure to its caller', async () => {
    const pacer = new WritePacer(1);
    const failed = pacer.run(async () => {
      throw new Error('boom');
    });
    const next = pacer.run(async () => 'ok');
    await expect(failed).rejects.toThrow('boom');
    await expect(next).resolves.toBe('ok');
  });

  it('does not delay a write that comes long after the last one', async () => {
    let clock = 1_000_000;
    const pacer = new WritePacer(1_000, () => clock);
    await pacer.run(async () => undefined);
    clock += 5_000;
    let ran = false;
    const pending = pacer.run(async () => (ran = true));
    await Promise.resolve();
    await Promise.resolve();
    await pending;
    expect(ran).toBe(true);
  });
});
