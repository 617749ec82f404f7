// Preloaded with `node --import` into a bundled entry (the action, the CLI) by the tests and the bench that
// measure what an input costs it: at exit, the process's peak resident memory (VmHWM, from /proc) and the
// longest the event loop was held (perf_hooks' delay histogram, 10 ms resolution), as JSON to
// $MEMORY_PROBE_OUT. The process's children are not counted: each has its own.
import { readFileSync, writeFileSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';

const out = process.env.MEMORY_PROBE_OUT;
const delay = monitorEventLoopDelay({ resolution: 10 });
delay.enable();
process.on('exit', () => {
  const hwm = /VmHWM:\s+(\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1];
  if (out)
    writeFileSync(out, JSON.stringify({ peakRssKb: Number(hwm), maxEventLoopDelayMs: delay.max / 1e6 }));
});
