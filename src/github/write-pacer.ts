// GitHub asks for at least a second between mutating requests. One pacer sees every write and spaces them.
import { setTimeout as sleep } from 'node:timers/promises';

export const MIN_WRITE_GAP_MS = 1_000;

/** Runs tasks one at a time, each starting no sooner than `gapMs` after the previous one finished. */
export class WritePacer {
  #tail: Promise<unknown> = Promise.resolve();
  #lastEnd = Number.NEGATIVE_INFINITY;

  constructor(
    readonly gapMs = MIN_WRITE_GAP_MS,
    readonly now: () => number = Date.now,
  ) {}

  run<T>(task: () => Promise<T>): Promise<T> {
    const result = this.#tail.then(async () => {
      const wait = this.#lastEnd + this.gapMs - this.now();
      if (wait > 0) await sleep(wait);
      try {
        return await task();
      } finally {
        this.#lastEnd = this.now();
      }
    });
    this.#tail = result.catch(() => undefined);
    return result;
  }
}
