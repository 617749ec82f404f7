// How long the client sat waiting on the server, request by request, seen from the client's side: the time
// its event loop was blocked on I/O (Node's event loop utilisation, `idle`) between the last byte of the
// request handed to the socket and the last byte of the response read. Whatever the client itself does in
// that span (GC, parsing the stream as it arrives) is not idle, so it stays billed to the client; the
// moments it waits for the server's next bytes, before or during the answer, are idle. Node's fetch
// (undici, which the Anthropic SDK uses) publishes the diagnostics_channel events that mark the span.
import diagnostics from 'node:diagnostics_channel';
import { PerformanceObserver, performance, type PerformanceEntry } from 'node:perf_hooks';

const BODY_SENT = 'undici:request:bodySent';
const HEADERS = 'undici:request:headers';
const DONE = 'undici:request:trailers';

interface UndiciEvent {
  request: { origin?: string | URL };
}

export interface ServerWaits {
  /** Per request to the origin that completed, in order: event-loop idle ms, last byte sent → response read. */
  waits: number[];
  /** Of all the waits, the part before the response headers; the rest came while the answer streamed in. */
  beforeHeadersMs: number;
  /** This process's GC pauses (main thread) while watched, whether in a wait or not. */
  gcMs: number;
}

/** Records waits for requests to `origin` (e.g. `http://127.0.0.1:PORT`) until `stop()`. */
export function watchServerWaits(origin: string): { stop(): ServerWaits } {
  const idleAt = (): number => performance.eventLoopUtilization().idle;
  const marks = new WeakMap<object, { sent: number; headers?: number }>();
  const waits: number[] = [];
  let beforeHeadersMs = 0;
  const gcEntries: PerformanceEntry[] = [];
  const ours = (message: unknown): object | undefined => {
    const { request } = message as UndiciEvent;
    return String(request.origin) === origin ? request : undefined;
  };
  const onBodySent = (message: unknown): void => {
    const request = ours(message);
    if (request) marks.set(request, { sent: idleAt() });
  };
  const onHeaders = (message: unknown): void => {
    const mark = marks.get(ours(message) ?? {});
    if (mark) mark.headers = idleAt();
  };
  const onDone = (message: unknown): void => {
    const request = ours(message);
    const mark = marks.get(request ?? {});
    if (!request || !mark) return;
    const idle = idleAt();
    waits.push(idle - mark.sent);
    beforeHeadersMs += (mark.headers ?? idle) - mark.sent;
    marks.delete(request);
  };
  const channels: [string, (message: unknown) => void][] = [
    [BODY_SENT, onBodySent],
    [HEADERS, onHeaders],
    [DONE, onDone],
  ];
  const gc = new PerformanceObserver((list) => gcEntries.push(...list.getEntries()));
  gc.observe({ entryTypes: ['gc'] });
  for (const [name, listener] of channels) diagnostics.subscribe(name, listener);
  let stopped: ServerWaits | undefined;
  return {
    stop: () => {
      if (stopped) return stopped;
      for (const [name, listener] of channels) diagnostics.unsubscribe(name, listener);
      // Entries not yet delivered to the callback are still in the observer's buffer.
      gcEntries.push(...gc.takeRecords());
      gc.disconnect();
      const gcMs = gcEntries.reduce((total, entry) => total + entry.duration, 0);
      stopped = { waits, beforeHeadersMs, gcMs };
      return stopped;
    },
  };
}
