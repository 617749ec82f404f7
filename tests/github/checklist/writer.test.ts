import { describe, expect, it } from 'vitest';
import { CommentWriter } from '../../../src/github/checklist/writer.js';

const INTERVAL = 50;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A stand-in for the GitHub edit call: records bodies, tracks overlap, fails when told to. */
function fakeGitHub(options: { latencyMs?: number; fail?: (call: number, body: string) => boolean } = {}) {
  const calls: string[] = [];
  let active = 0;
  let maxActive = 0;
  const write = async (body: string): Promise<void> => {
    const call = calls.push(body);
    active++;
    maxActive = Math.max(maxActive, active);
    try {
      await sleep(options.latencyMs ?? 5);
      if (options.fail?.(call, body)) throw new Error(`write ${call} failed`);
    } finally {
      active--;
    }
  };
  return { write, calls, maxActive: () => maxActive };
}

/** A write whose completion the test controls. */
function gatedWrite() {
  const calls: string[] = [];
  const gates: (() => void)[] = [];
  const write = (body: string) =>
    new Promise<void>((resolve) => {
      calls.push(body);
      gates.push(resolve);
    });
  return { write, calls, release: (index: number) => gates[index]?.() };
}

describe('CommentWriter', () => {
  it('coalesces 100 rapid sets into a few writes whose last is the 100th body', async () => {
    const github = fakeGitHub();
    const writer = new CommentWriter(github.write, { minIntervalMs: INTERVAL });
    for (let i = 1; i <= 100; i++) writer.set(`body ${i}`);
    await writer.flush();
    // The first body goes out at once; everything set while it was in flight collapses into the last.
    expect(github.calls).toEqual(['body 1', 'body 100']);
    expect(writer.writes).toBe(2);
    expect(writer.failures).toBe(0);
    expect(github.maxActive()).toBe(1);
  });

  it('returns from set at once while a write hangs, and keeps one write in flight', async () => {
    const gated = gatedWrite();
    const writer = new CommentWriter(gated.write, { minIntervalMs: 0 });
    writer.set('a');
    writer.set('b');
    writer.set('c');
    expect(gated.calls).toEqual(['a']);
    const flushed = writer.flush();
    gated.release(0);
    await sleep(INTERVAL);
    expect(gated.calls).toEqual(['a', 'c']);
    gated.release(1);
    await flushed;
    expect(writer.writes).toBe(2);
  });

  it('never overlaps writes while bodies keep arriving', async () => {
    const github = fakeGitHub({ latencyMs: 20 });
    const writer = new CommentWriter(github.write, { minIntervalMs: 5 });
    for (let i = 1; i <= 30; i++) {
      writer.set(`body ${i}`);
      await sleep(3);
    }
    await writer.flush();
    expect(github.maxActive()).toBe(1);
    expect(github.calls.at(-1)).toBe('body 30');
    // Bodies only move forward: a skipped body is never written after a newer one.
    const numbers = github.calls.map((body) => Number(body.split(' ')[1]));
    expect(numbers).toEqual([...numbers].sort((a, b) => a - b));
  });

  it('waits the interval between the starts of two writes', async () => {
    let clock = 0;
    const github = fakeGitHub({ latencyMs: 1 });
    const writer = new CommentWriter(github.write, { minIntervalMs: 1000, now: () => clock });
    writer.set('a');
    await sleep(INTERVAL);
    writer.set('b');
    await sleep(INTERVAL * 2);
    // The clock has not moved: 'b' must still be waiting.
    expect(github.calls).toEqual(['a']);
    clock = 1000;
    await writer.flush();
    expect(github.calls).toEqual(['a', 'b']);
  });

  it('flushes the pending body at once, without waiting the interval', async () => {
    const clock = 0;
    const github = fakeGitHub({ latencyMs: 1 });
    const writer = new CommentWriter(github.write, { minIntervalMs: 60_000, now: () => clock });
    writer.set('a');
    await sleep(INTERVAL);
    writer.set('b');
    expect(github.calls).toEqual(['a']);
    await writer.flush();
    expect(github.calls).toEqual(['a', 'b']);
    // The timer armed for 'b' is gone with it: nothing more is written, and nothing keeps the process up.
    await sleep(INTERVAL);
    expect(github.calls).toEqual(['a', 'b']);
  });

  it('settles once the write in flight is over, without writing what came after it', async () => {
    const gated = gatedWrite();
    const writer = new CommentWriter(gated.write, { minIntervalMs: 60_000 });
    writer.set('a');
    writer.set('b');
    let settled = false;
    const done = writer.settled().then(() => (settled = true));
    await sleep(5);
    expect(settled).toBe(false);
    gated.release(0);
    await done;
    // 'b' waits for the interval: settling is not flushing.
    expect(gated.calls).toEqual(['a']);
  });

  it('writes nothing on its own once paused, and flushes only the latest body', async () => {
    const github = fakeGitHub({ latencyMs: 1 });
    const writer = new CommentWriter(github.write, { minIntervalMs: INTERVAL });
    writer.set('a');
    writer.set('b'); // waits for the interval
    writer.pause();
    writer.set('c');
    await sleep(INTERVAL * 3);
    expect(github.calls).toEqual(['a']);
    await writer.flush();
    expect(github.calls).toEqual(['a', 'c']);
  });

  it('does not write a body equal to the one last written', async () => {
    const github = fakeGitHub();
    const writer = new CommentWriter(github.write, { minIntervalMs: INTERVAL });
    writer.set('same');
    await writer.flush();
    writer.set('same');
    await writer.flush();
    writer.set('other');
    writer.set('same');
    await writer.flush();
    expect(github.calls).toEqual(['same']);
    expect(writer.writes).toBe(1);
  });

  it('reports a failed write and lands the latest body with the next write', async () => {
    const errors: unknown[] = [];
    const github = fakeGitHub({ fail: (call) => call === 1 });
    const writer = new CommentWriter(github.write, {
      minIntervalMs: INTERVAL,
      onError: (error) => errors.push(error),
    });
    writer.set('first');
    writer.set('second');
    writer.set('third');
    await writer.flush();
    expect(errors).toHaveLength(1);
    expect((errors[0] as Error).message).toBe('write 1 failed');
    expect(github.calls).toEqual(['first', 'third']);
    expect(writer.failures).toBe(1);
    expect(writer.writes).toBe(1);
    // A failure after the latest body is in place does not stop the next change from landing.
    writer.set('fourth');
    await writer.flush();
    expect(github.calls).toEqual(['first', 'third', 'fourth']);
  });

  it('does not retry a failed body on its own, but flush writes it', async () => {
    const github = fakeGitHub({ fail: (call) => call === 1 });
    const writer = new CommentWriter(github.write, { minIntervalMs: 5 });
    writer.set('only');
    await sleep(INTERVAL * 2);
    expect(github.calls).toEqual(['only']);
    await writer.flush();
    expect(github.calls).toEqual(['only', 'only']);
    expect(writer.writes).toBe(1);
    expect(writer.failures).toBe(1);
  });

  it('flush retries a failing final write once more, then resolves without throwing', async () => {
    const errors: unknown[] = [];
    const github = fakeGitHub({ fail: () => true });
    const writer = new CommentWriter(github.write, {
      minIntervalMs: 5,
      onError: (error) => errors.push(error),
    });
    writer.set('final');
    await writer.flush();
    // The write in flight when flush began, then flush's own attempt and its one retry.
    expect(github.calls).toEqual(['final', 'final', 'final']);
    expect(writer.failures).toBe(3);
    expect(errors).toHaveLength(3);
    expect(writer.writes).toBe(0);
  });

  it('survives a write that throws synchronously and an onError that throws', async () => {
    let calls = 0;
    const writer = new CommentWriter(
      (body) => {
        calls++;
        if (body === 'bad') throw new Error('sync failure');
        return Promise.resolve();
      },
      {
        minIntervalMs: 0,
        onError: () => {
          throw new Error('handler failure');
        },
      },
    );
    expect(() => writer.set('bad')).not.toThrow();
    await writer.flush();
    writer.set('good');
    await writer.flush();
    expect(writer.failures).toBe(3);
    expect(writer.writes).toBe(1);
    expect(calls).toBe(4);
  });

  it('flush with nothing queued resolves without writing', async () => {
    const github = fakeGitHub();
    const writer = new CommentWriter(github.write);
    await writer.flush();
    expect(github.calls).toEqual([]);
    expect(writer.writes).toBe(0);
  });
});
