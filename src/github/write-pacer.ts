// GitHub's secondary rate limits cap content creation at 80 requests a minute and 500 an hour ("Rate limits
// for the REST API", https://docs.github.com/rest/using-the-rest-api/rate-limits-for-the-rest-api, section
// "About secondary rate limits"), and its guidance is to send requests serially rather than concurrently
// and, when making a large number of mutative requests, to wait at least one second between them ("Best
// practices for using the REST API", https://docs.github.com/rest/guides/best-practices-for-using-the-rest-api).
// A run makes a handful of writes, not a large number, so this departs from that one-second rule on purpose:
// one pacer sees every write made through Octokit, runs them one after another, and lets a short burst
// through at once (5 in any second) while keeping every window under GitHub's limits. The one write made outside it is the first
// 👀 (action/start.ts), sent before Octokit is loaded, with nothing before it. One write may go beside
// another: the reaction that says how a run ended, beside the final checklist write (two requests at once,
// once a run, far below the 100 concurrent requests GitHub's secondary limits allow).
import { setTimeout as sleep } from 'node:timers/promises';

/** Added to every window when a write waits for room in it (see `waitMs`). */
export const WINDOW_MARGIN_MS = 50;

/** At most `count` write starts in any `ms` milliseconds. */
export interface WriteWindow {
  count: number;
  ms: number;
}

/**
 * A burst of 5 in any second (a run's first writes and its last ones go out together), 80 in any minute
 * and 500 in any hour: GitHub's documented content-creation limits.
 */
export const WRITE_WINDOWS: readonly WriteWindow[] = [
  { count: 5, ms: 1_000 },
  { count: 80, ms: 60_000 },
  { count: 500, ms: 3_600_000 },
];

/** Runs tasks one at a time, each starting only when every window has room for one more start. */
export class WritePacer {
  #tail: Promise<unknown> = Promise.resolve();
  /** Writes handed to `run` and not yet settled. */
  #pending = 0;
  /** Start times, oldest first, as far back as the longest window reaches. */
  readonly #starts: number[] = [];
  readonly #longest: number;

  readonly windows: readonly WriteWindow[];
  readonly #now: () => number;
  readonly #sleep: (ms: number) => Promise<unknown>;

  constructor({
    windows = WRITE_WINDOWS,
    now = Date.now,
    sleep: wait = sleep,
    before,
  }: {
    windows?: readonly WriteWindow[];
    now?: () => number;
    sleep?: (ms: number) => Promise<unknown>;
    /**
     * A write made without the pacer (the first 👀), settled once answered: the next write waits for it,
     * and it counts in the windows as started when it settled (later than it did: on the safe side).
     */
    before?: Promise<unknown>;
  } = {}) {
    this.windows = windows;
    this.#now = now;
    this.#sleep = wait;
    this.#longest = Math.max(0, ...windows.map((w) => w.ms));
    if (before) {
      this.#pending++;
      const done = () => {
        this.#starts.push(this.#now());
        this.#pending--;
      };
      this.#tail = before.then(done, done);
    }
  }

  /**
   * Runs `task` once the windows have room and every write handed in before it is done; `beside` lets it go
   * beside the write in flight instead (it still counts in the windows, and later writes do not wait for it):
   * for one write at the end of a run to another resource (the reaction beside the final comment), where
   * waiting in turn would cost a whole round trip.
   */
  run<T>(task: () => Promise<T>, { beside = false }: { beside?: boolean } = {}): Promise<T> {
    const go = async () => {
      for (let wait = this.waitMs(); wait > 0; wait = this.waitMs()) await this.#sleep(wait);
      this.#starts.push(this.#now());
      return await task();
    };
    if (beside) return go();
    // With nothing before it, a write starts in this very call (the 👀 leaves before the reads sent after it).
    const result = this.#pending === 0 ? go() : this.#tail.then(go);
    this.#pending++;
    const done = () => void this.#pending--;
    this.#tail = result.then(done, done);
    return result;
  }

  /** How long the next write must wait for every window to have room (0: it may start now). */
  waitMs(): number {
    const now = this.#now();
    while (this.#starts.length > 0 && this.#starts[0]! <= now - this.#longest) this.#starts.shift();
    let wait = 0;
    for (const { count, ms } of this.windows) {
      // The start that must leave the window before one more fits in it, with a margin: a write reaches
      // GitHub some milliseconds after it starts here, and not always as many, so that two starts 1 s apart
      // could arrive a little less than 1 s apart.
      const blocking = this.#starts[this.#starts.length - count];
      if (blocking !== undefined) wait = Math.max(wait, blocking + ms + WINDOW_MARGIN_MS - now);
    }
    return wait;
  }
}
