// How long the client sat waiting on the server, request by request, seen from the client's side. Node's
// fetch (undici, which the Anthropic SDK uses) publishes diagnostics_channel events as it works; a wait
// runs from `bodySent` (the last byte of the request handed to the socket) to `headers` (the response's
// status line and headers parsed). This process's own GC pauses inside that span are taken out of it:
// a pause there may have held up reading the response, so it is billed to the client, not the server.
import diagnostics from 'node:diagnostics_channel';
import { PerformanceObserver, performance, type PerformanceEntry } from 'node:perf_hooks';

const BODY_SENT = 'undici:request:bodySent';
const HEADERS = 'undici:request:headers';

interface UndiciEvent {
  request: { origin?: string | URL };
}

export interface ServerWaits {
  /** Per request to the origin, in order: ms from last byte sent to response headers, less GC pauses. */
  waits: number[];
  /** This process's GC pauses (main thread) while watched, in total, and the part inside waits. */
  gcMs: number;
  gcInWaitsMs: number;
}

/** The overlap in ms of two spans [start, end). */
function overlap(a: { start: number; end: number }, b: { start: number; end: number }): number {
  return Math.max(0, Math.min(a.end, b.end) - Math.max(a.start, b.start));
}

/** Records waits for requests to `origin` (e.g. `http://127.0.0.1:PORT`) until `stop()`. */
export function watchServerWaits(origin: string): { stop(): ServerWaits } {
  const sentAt = new WeakMap<object, number>();
  const spans: { start: number; end: number }[] = [];
  const gcEntries: PerformanceEntry[] = [];
  const ours = (event: UndiciEvent): boolean => String(event.request.origin) === origin;
  const onBodySent = (message: unknown): void => {
    const event = message as UndiciEvent;
    if (ours(event)) sentAt.set(event.request, performance.now());
  };
  const onHeaders = (message: unknown): void => {
    const end = performance.now();
    const event = message as UndiciEvent;
    const start = sentAt.get(event.request);
    if (start === undefined || !ours(event)) return;
    spans.push({ start, end });
    sentAt.delete(event.request);
  };
  const gc = new PerformanceObserver((list) => gcEntries.push(...list.getEntries()));
  gc.observe({ entryTypes: ['gc'] });
  diagnostics.subscribe(BODY_SENT, onBodySent);
  diagnostics.subscribe(HEADERS, onHeaders);
  let stopped: ServerWaits | undefined;
  return {
    stop: () => {
      if (stopped) return stopped;
      diagnostics.unsubscribe(BODY_SENT, onBodySent);
      diagnostics.unsubscribe(HEADERS, onHeaders);
      // Entries not yet delivered to the callback are still in the observer's buffer.
      gcEntries.push(...gc.takeRecords());
      gc.disconnect();
      const pauses = gcEntries.map((e) => ({ start: e.startTime, end: e.startTime + e.duration }));
      const gcIn = (span: { start: number; end: number }) =>
        pauses.reduce((total, pause) => total + overlap(span, pause), 0);
      const gcInSpans = spans.map(gcIn);
      stopped = {
        waits: spans.map((span, i) => span.end - span.start - gcInSpans[i]!),
        gcMs: pauses.reduce((total, pause) => total + pause.end - pause.start, 0),
        gcInWaitsMs: gcInSpans.reduce((a, b) => a + b, 0),
      };
      return stopped;
    },
  };
}
