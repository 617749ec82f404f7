// Who may run now: explore helpers side by side up to a limit, an edit helper alone (no other helper beside
// it). Waiters are served in the order they asked, so a waiting edit helper is not passed by later explorers.
import type { HelperKind } from '../events.js';

export class Slots {
  #explorers = 0;
  #editing = false;
  readonly #waiting: Array<{ kind: HelperKind; grant: () => void }> = [];

  constructor(readonly maxParallel: number) {
    if (!Number.isInteger(maxParallel) || maxParallel < 1)
      throw new RangeError(`helpers side by side must be ≥ 1, got ${maxParallel}`);
  }

  /** Helpers running now. */
  get running(): { explorers: number; editing: boolean } {
    return { explorers: this.#explorers, editing: this.#editing };
  }

  /** Resolves once a helper of `kind` may run, with the function that frees its slot (once). */
  take(kind: HelperKind): Promise<() => void> {
    return new Promise((resolve) => {
      this.#waiting.push({ kind, grant: () => resolve(this.#releaser(kind)) });
      this.#serve();
    });
  }

  #fits(kind: HelperKind): boolean {
    if (this.#editing) return false;
    return kind === 'edit' ? this.#explorers === 0 : this.#explorers < this.maxParallel;
  }

  #serve(): void {
    while (this.#waiting.length > 0 && this.#fits(this.#waiting[0]!.kind)) {
      const next = this.#waiting.shift()!;
      if (next.kind === 'edit') this.#editing = true;
      else this.#explorers++;
      next.grant();
    }
  }

  #releaser(kind: HelperKind): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      if (kind === 'edit') this.#editing = false;
      else this.#explorers--;
      this.#serve();
    };
  }
}
