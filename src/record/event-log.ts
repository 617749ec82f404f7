// The CLI's `--events FILE`: every agent event as one JSON line, stamped with when it happened, for scripts
// that follow a run (and for the bench, which times the bundled CLI from it).
import type { AgentObserver } from '../agent/events.js';
import { openJsonLines } from './json-lines.js';

export interface EventLog {
  observer: AgentObserver;
  /** Resolves once every line is on disk. */
  close(): Promise<void>;
}

/** Opens (and truncates) `path` now; every string in an event passes `redact` before it is written. */
export function openEventLog(path: string, redact: (text: string) => string = (text) => text): EventLog {
  const lines = openJsonLines(path, redact);
  return { observer: (event) => lines.write(event), close: () => lines.close() };
}
