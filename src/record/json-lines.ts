// A JSON Lines file written as a run goes: one object a line, every string in it redacted on its way out.
import { createWriteStream, openSync } from 'node:fs';
import { performance } from 'node:perf_hooks';

export interface JsonLines {
  readonly path: string;
  /** Writes `value` as one line, stamped with `at` (milliseconds since the epoch, to a microsecond). */
  write(value: object): void;
  /** Resolves once every line written so far is on disk. */
  flush(): Promise<void>;
  /** Resolves once every line is on disk; rejects with the first write error. */
  close(): Promise<void>;
}

/** Milliseconds since the epoch, to a microsecond: fine enough to time a turn. */
export function now(): number {
  return Math.round((performance.timeOrigin + performance.now()) * 1000) / 1000;
}

/**
 * Opens (and truncates) `path` now, so a bad path fails before the run starts. Every string of every value
 * passes `redact` before it is written: the file is one more place a secret must not reach.
 */
export function openJsonLines(path: string, redact: (text: string) => string): JsonLines {
  const stream = createWriteStream('', { fd: openSync(path, 'w') });
  let failure: Error | undefined;
  stream.on('error', (error) => (failure ??= error));
  let closed: Promise<void> | undefined;
  return {
    path,
    write: (value) => {
      if (closed) return;
      const line = JSON.stringify({ at: now(), ...value }, (_key, inner: unknown) =>
        typeof inner === 'string' ? redact(inner) : inner,
      );
      stream.write(`${line}\n`);
    },
    flush: () => new Promise((resolve) => (closed ? resolve() : stream.write('', () => resolve()))),
    close: () =>
      (closed ??= new Promise((resolve, reject) => {
        stream.end(() => (failure ? reject(failure) : resolve()));
      })),
  };
}
