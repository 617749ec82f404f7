// Preloaded with `node --import` into a bundled entry (the action, the CLI) by the tests and the bench that
// measure what an input costs it. At exit it writes, as JSON to $MEMORY_PROBE_OUT: the process's peak
// resident memory (VmHWM, from /proc; its children have their own), the longest the event loop was held over
// the whole run (perf_hooks' delay histogram, 10 ms resolution: loading the bundle included), and the longest
// while a picture decoder (dist/image-decoder.js) was running, with how many ran.
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire, syncBuiltinESMExports } from 'node:module';
import { monitorEventLoopDelay } from 'node:perf_hooks';

const out = process.env.MEMORY_PROBE_OUT;
const whole = monitorEventLoopDelay({ resolution: 10 });
whole.enable();

// Every process the entry starts goes through child_process.spawn: the decoder's are watched.
const childProcess = createRequire(import.meta.url)('node:child_process');
const spawn = childProcess.spawn;
const decoding = monitorEventLoopDelay({ resolution: 10 });
let decoders = 0;
let maxWhileDecodingMs = 0;
childProcess.spawn = function (...args) {
  const child = spawn.apply(this, args);
  if (JSON.stringify(args).includes('image-decoder.js')) {
    decoders++;
    decoding.reset();
    decoding.enable();
    child.on('close', () => {
      decoding.disable();
      maxWhileDecodingMs = Math.max(maxWhileDecodingMs, decoding.max / 1e6);
    });
  }
  return child;
};
syncBuiltinESMExports();

process.on('exit', () => {
  const hwm = /VmHWM:\s+(\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1];
  const cost = { peakRssKb: Number(hwm), maxEventLoopDelayMs: whole.max / 1e6, decoders, maxWhileDecodingMs };
  if (out) writeFileSync(out, JSON.stringify(cost));
});
