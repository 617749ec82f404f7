import { describe, expect, it } from 'vitest';
import { WINDOW_MARGIN_MS as M, WritePacer } from '../../src/github/write-pacer.js';

/** A clock the test moves: `sleep` advances it at once, so no test waits in real time. */
function fakeClock(start = 1_000_000) {
  const clock = { now: start, slept: [] as number[] };
  return {
    clock,
    now: () => clock.now,
    sleep: async (ms: number) => {
      clock.slept.push(ms);
      clock.now += ms;
    },
  };
}

describe('WritePacer', () => {
  it('keeps to GitHub’s documented limits, 80 content-creating requests a minute and 500 an hour, and waits no longer than they need', async () => {
    // GitHub's numbers, written here and not read from the pacer (at most 80 content-generating requests a
    // minute and 500 an hour: https://docs.github.com/rest/using-the-rest-api/rate-limits-for-the-rest-api,
    // "About secondary rate limits"), with the pacer's own burst of 5 a second.
    const limits = [
      { count: 5, ms: 1_000 },
      { count: 80, ms: 60_000 },
      { count: 500, ms: 3_600_000 },
    ];
    const { clock, now, sleep } = fakeClock();
    const pacer = new WritePacer({ now, sleep });
    const arrivals: number[] = [];
    const starts: number[] = [];
    // 1,200 writes over some hours: bursts of up to 30 at once, then spells of 0 to 90 s between them.
    for (let i = 0; i < 1_200; i++) {
      if (i % 30 === 0) clock.now += ((i * 7_919) % 90) * 1_000;
      arrivals.push(clock.now);
      await pacer.run(async () => void starts.push(clock.now));
    }
    expect(starts).toHaveLength(1_200);
    for (const [i, start] of starts.entries()) {
      // Never more than `count` starts in any `ms`, with the margin for the time a write takes to reach GitHub.
      for (const { count, ms } of limits)
        if (i >= count) expect(start - starts[i - count]!).toBeGreaterThanOrEqual(ms + M);
      // And no later than that: at once when every window has room, else the moment the first one does.
      const earliest = Math.max(
        arrivals[i]!,
        ...limits.map(({ count, ms }) => (i >= count ? starts[i - count]! + ms + M : 0)),
      );
      expect(start).toBe(earliest);
    }
    // The hour's limit was what held the writes back at the end: 1,200 writes take over two hours.
    expect(starts.at(-1)! - starts[0]!).toBeGreaterThanOrEqual(2 * 3_600_000);
  });

  it('lets a burst of 5 through at once, then holds the 6th until the first has left the second', async () => {
    const { clock, now, sleep } = fakeClock();
    const pacer = new WritePacer({ now, sleep });
    const starts: number[] = [];
    await Promise.all(Array.from({ length: 7 }, () => pacer.run(async () => void starts.push(clock.now))));
    const t0 = starts[0]!;
    expect(starts.map((s) => s - t0)).toEqual([0, 0, 0, 0, 0, 1_000 + M, 1_000 + M]);
    for (let i = 5; i < starts.length; i++) expect(starts[i]! - starts[i - 5]!).toBeGreaterThanOrEqual(1_000);
  });

  it('starts the next write only once a write made before it (the first 👀) is answered, and counts it', async () => {
    const { clock, now, sleep } = fakeClock();
    let answer = () => {};
    const settled = new Promise<void>((resolve) => (answer = resolve));
    const pacer = new WritePacer({ now, sleep, before: settled });
    const starts: number[] = [];
    const writes = Array.from({ length: 5 }, () => pacer.run(async () => void starts.push(clock.now)));
    await Promise.resolve();
    expect(starts).toEqual([]); // the 👀 is still in flight: one write at a time
    clock.now += 300;
    answer();
    await Promise.all(writes);
    // The 👀 counts as started when it was answered; with it, these are 6 writes: the 5th waits a second.
    expect(starts.map((s) => s - 1_000_300)).toEqual([0, 0, 0, 0, 1_000 + M]);
  });

  it('never lets more than 5 writes start in any second, however they are spread', async () => {
    const { clock, now, sleep } = fakeClock();
    const pacer = new WritePacer({ now, sleep });
    const starts: number[] = [];
    for (let i = 0; i < 40; i++) {
      clock.now += (i * 137) % 400; // writes arriving every 0–400 ms
      await pacer.run(async () => void starts.push(clock.now));
    }
    for (let i = 5; i < starts.length; i++) expect(starts[i]! - starts[i - 5]!).toBeGreaterThanOrEqual(1_000);
  });

  it('holds the 81st write of a minute until the minute of the first has passed', async () => {
    const { clock, now, sleep } = fakeClock();
    const pacer = new WritePacer({ now, sleep });
    const starts: number[] = [];
    for (let i = 0; i < 81; i++) await pacer.run(async () => void starts.push(clock.now));
    expect(starts[79]! - starts[0]!).toBeLessThan(60_000);
    expect(starts[80]! - starts[0]!).toBe(60_000 + M);
  });

  it('holds the 501st write of an hour', async () => {
    const { clock, now, sleep } = fakeClock();
    const pacer = new WritePacer({ now, sleep });
    const starts: number[] = [];
    for (let i = 0; i < 501; i++) await pacer.run(async () => void starts.push(clock.now));
    expect(starts[500]! - starts[0]!).toBe(3_600_000 + M);
  });

  it('runs writes one at a time', async () => {
    const pacer = new WritePacer();
    let inFlight = 0;
    let maxInFlight = 0;
    const write = (ms: number) => async () => {
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      await new Promise((done) => setTimeout(done, ms));
      inFlight--;
    };
    await Promise.all([pacer.run(write(5)), pacer.run(write(15)), pacer.run(write(1)), pacer.run(write(1))]);
    expect(maxInFlight).toBe(1);
  });

  it('keeps going after a failed write, and reports the failure to its caller', async () => {
    const pacer = new WritePacer();
    const failed = pacer.run(async () => {
      throw new Error('boom');
    });
    const next = pacer.run(async () => 'ok');
    await expect(failed).rejects.toThrow('boom');
    await expect(next).resolves.toBe('ok');
  });

  it('does not delay a write that comes after a quiet spell', async () => {
    const { clock, now, sleep } = fakeClock();
    const pacer = new WritePacer({ now, sleep });
    for (let i = 0; i < 5; i++) await pacer.run(async () => undefined);
    clock.now += 1_000 + M;
    await pacer.run(async () => undefined);
    expect(clock.slept).toEqual([]);
  });

  it('lets a write asked to go beside run while the one in flight is unanswered, and still counts it', async () => {
    const { clock, now, sleep } = fakeClock();
    const pacer = new WritePacer({ now, sleep });
    const log: string[] = [];
    let answer = () => {};
    const held = new Promise<void>((resolve) => (answer = resolve));
    const first = pacer.run(async () => {
      log.push('final write starts');
      await held;
      log.push('final write answered');
    });
    const reaction = pacer.run(async () => void log.push('reaction starts'), { beside: true });
    const after = pacer.run(async () => void log.push('next write starts'));
    await reaction;
    // The reaction went while the final write was unanswered; a write in turn still waits for it.
    expect(log).toEqual(['final write starts', 'reaction starts']);
    answer();
    await Promise.all([first, after]);
    expect(log).toEqual([
      'final write starts',
      'reaction starts',
      'final write answered',
      'next write starts',
    ]);
    // It counts in the windows: with 4 more, the 6th start in this second waits for the first to leave it.
    const starts: number[] = [];
    await Promise.all(Array.from({ length: 4 }, () => pacer.run(async () => void starts.push(clock.now))));
    expect(starts.map((s) => s - 1_000_000)).toEqual([0, 0, 1_000 + M, 1_000 + M]);
  });
});
