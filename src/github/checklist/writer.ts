// Coalesced comment edits: the agent loop hands over every new body at once and never waits for GitHub;
// this writer sends only the latest one, one request at a time, at most one start per interval.

export interface CommentWriterOptions {
  /** Least time between the starts of two writes (default 1000 ms). */
  minIntervalMs?: number;
  /** Told about every failed write; the writer itself never throws from `set`. */
  onError?: (error: unknown) => void;
  now?: () => number;
}

export class CommentWriter {
  readonly #write: (body: string) => Promise<void>;
  readonly #minIntervalMs: number;
  readonly #onError: (error: unknown) => void;
  readonly #now: () => number;

  /** The newest body handed to `set`. */
  #latest: string | undefined;
  /** The body GitHub holds, as far as we know. */
  #lastWritten: string | undefined;
  #lastStart = -Infinity;
  /** Resolves to whether the write succeeded; never rejects. */
  #inFlight: Promise<boolean> | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;
  /** Set when the latest body failed: it waits for the next `set` or `flush` instead of retrying in a loop. */
  #held = false;
  /** Set by `pause`: only `flush` writes from then on. */
  #paused = false;
  #writes = 0;
  #failures = 0;

  constructor(write: (body: string) => Promise<void>, options: CommentWriterOptions = {}) {
    this.#write = write;
    this.#minIntervalMs = options.minIntervalMs ?? 1000;
    this.#onError = options.onError ?? (() => {});
    this.#now = options.now ?? Date.now;
  }

  /** Successful writes so far. */
  get writes(): number {
    return this.#writes;
  }

  /** Failed writes so far. */
  get failures(): number {
    return this.#failures;
  }

  /** Resolves once the write in flight, if any, is over (whether it succeeded or not); writes nothing. */
  async settled(): Promise<void> {
    await this.#inFlight;
  }

  /**
   * Stops writing on its own (a write in flight goes on): the bodies set from now on wait for `flush`, which
   * writes only the latest. For the end of a run, when the final write is near and would replace them.
   */
  pause(): void {
    this.#paused = true;
    this.#clearTimer();
  }

  /** Queues the latest body; returns at once. */
  set(body: string): void {
    this.#latest = body;
    this.#held = false;
    this.#pump();
  }

  /**
   * Resolves once the latest body has been written, or has failed twice more: waits for the write in
   * flight, then writes what is pending at once (the caller needs it now: the first body, the outcome).
   * Only a retry after a failed write waits the interval.
   */
  async flush(): Promise<void> {
    let failed = 0;
    while (failed < 2) {
      if (this.#inFlight) {
        await this.#inFlight;
        continue;
      }
      if (!this.#dirty()) return;
      const wait = failed > 0 ? this.#waitMs() : 0;
      if (wait > 0) {
        await new Promise((resolve) => setTimeout(resolve, wait));
        continue;
      }
      this.#clearTimer();
      if (!(await this.#start())) failed++;
    }
  }

  #dirty(): boolean {
    return this.#latest !== undefined && this.#latest !== this.#lastWritten;
  }

  #waitMs(): number {
    return this.#lastStart + this.#minIntervalMs - this.#now();
  }

  /** Starts a write now, or arms a timer for when the interval allows; the only automatic trigger. */
  #pump(): void {
    if (this.#inFlight || this.#timer || this.#held || this.#paused || !this.#dirty()) return;
    const wait = this.#waitMs();
    if (wait > 0) {
      this.#timer = setTimeout(() => {
        this.#timer = undefined;
        this.#pump();
      }, wait);
      return;
    }
    void this.#start();
  }

  #start(): Promise<boolean> {
    const body = this.#latest as string;
    this.#lastStart = this.#now();
    // `.then` runs asynchronously, so #inFlight is set before it is cleared even if write throws at once.
    const flight = this.#attempt(body).then((ok) => {
      this.#inFlight = undefined;
      this.#pump();
      return ok;
    });
    this.#inFlight = flight;
    return flight;
  }

  async #attempt(body: string): Promise<boolean> {
    try {
      await this.#write(body);
      this.#lastWritten = body;
      this.#writes++;
      return true;
    } catch (error) {
      this.#failures++;
      if (this.#latest === body) this.#held = true;
      try {
        this.#onError(error);
      } catch {
        // A broken error handler must not break the writer.
      }
      return false;
    }
  }

  #clearTimer(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}
