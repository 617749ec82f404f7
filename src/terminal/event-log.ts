// The CLI's `--events FILE`: every agent event as one JSON line, stamped with when it happened, for scripts
// that follow a run (and for the bench, which times the bundled CLI from it).
import { createWriteStream, openSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import type { AgentObserver } from '../agent/events.js';

export interface EventLog {
  observer: AgentObserver;
  /** Resolves once every line is on disk. */
  close(): Promise<void>;
}

/**
 * Opens (and truncates) `path` now, so a bad path fails before the run starts. Every string in an event
 * passes `redact` before it is written.
 */
export function openEventLog(path: string, redact: (text: string) => string = (text) => text): EventLog {
  const stream = createWriteStream('', { fd: openSync(path, 'w') });
  let failure: Error | undefined;
  stream.on('error', (error) => (failure ??= error));
  return {
    observer: (event) => {
      // Milliseconds since the epoch, to a microsecond: fine enough to time a turn.
      const at = Math.round((performance.timeOrigin + performance.now()) * 1000) / 1000;
      const line = JSON.stringify({ at, ...event }, (_key, value: unknown) =>
        typeof value === 'string' ? redact(value) : value,
      );
      stream.write(`${line}\n`);
    },
    close: () =>
      new Promise((resolve, reject) => {
        stream.end(() => (failure ? reject(failure) : resolve()));
      }),
  };
}
