// Preloaded with `node --import` into the bundled CLI by bench measure 2, so the process that is timed runs
// exactly what ships. For each request to the model server ($BENCH_PROBE_ORIGIN) it records how long the
// event loop sat idle (blocked on I/O, Node's event loop utilisation) between the request's last byte being
// handed to the socket and the response's last byte being read: the time the client only waited on the
// server. Whatever the client does itself in that span (GC, reading the stream) is not idle, so it stays
// billed to the client. Node's fetch (undici, which the Anthropic SDK uses) publishes both moments on
// diagnostics channels. At exit it writes everything as JSON to $BENCH_PROBE_OUT. Times are milliseconds
// since the epoch, the clock of the CLI's --events log.
import diagnostics from 'node:diagnostics_channel';
import { writeFileSync } from 'node:fs';
import { PerformanceObserver, performance } from 'node:perf_hooks';

const origin = process.env.BENCH_PROBE_ORIGIN;
const out = process.env.BENCH_PROBE_OUT;
const now = () => performance.timeOrigin + performance.now();
const busyMs = () => performance.eventLoopUtilization().active;
const idleMs = () => performance.eventLoopUtilization().idle;
const cpuMs = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};

/** One per completed request, in order. */
const requests = [];
const open = new WeakMap();
const gc = [];

const ours = (message) => (String(message.request.origin) === origin ? message.request : undefined);
diagnostics.subscribe('undici:request:create', (message) => {
  const request = ours(message);
  if (request) open.set(request, { createdAt: now(), busyAtCreate: busyMs(), cpuAtCreate: cpuMs() });
});
diagnostics.subscribe('undici:request:bodySent', (message) => {
  const mark = open.get(ours(message) ?? {});
  if (mark) Object.assign(mark, { sentAt: now(), idleAtSent: idleMs() });
});
diagnostics.subscribe('undici:request:trailers', (message) => {
  const request = ours(message);
  const mark = open.get(request ?? {});
  if (!request || !mark || mark.idleAtSent === undefined) return;
  const { idleAtSent, ...times } = mark;
  requests.push({
    ...times,
    doneAt: now(),
    waitMs: idleMs() - idleAtSent,
    busyAtDone: busyMs(),
    cpuAtDone: cpuMs(),
  });
  open.delete(request);
});
const recordGc = (entries) => {
  for (const entry of entries) gc.push({ at: performance.timeOrigin + entry.startTime, ms: entry.duration });
};
const gcObserver = new PerformanceObserver((list) => recordGc(list.getEntries()));
gcObserver.observe({ entryTypes: ['gc'] });

process.on('exit', () => {
  recordGc(gcObserver.takeRecords()); // entries not yet handed to the callback
  if (out) writeFileSync(out, JSON.stringify({ requests, gc }));
});
