// The decoder's own process (bundled as dist/image-decoder.js): reads one image on stdin and answers with what
// ./shrink-to-fit.ts made of it, as one JSON object on stdout, with the most memory it took. ./decoder.ts
// starts it, with its memory and time limited; nothing else runs here.
import { readFileSync } from 'node:fs';
import { DECODER_MEMORY_MB, type Fit } from '../fitted.js';
import { shrinkToFit } from './shrink-to-fit.js';

/**
 * This process's own peak resident memory, in KiB: VmHWM, which starts again at exec. (getrusage's maxRSS
 * would also count the copy of the action's process this one was forked from.)
 */
function peakRssKb(): number {
  try {
    return Number(/^VmHWM:\s+(\d+)/m.exec(readFileSync('/proc/self/status', 'utf8'))?.[1] ?? NaN);
  } catch {
    return process.resourceUsage().maxRSS;
  }
}

const chunks: Buffer[] = [];
for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
let fit: Fit;
try {
  fit = await shrinkToFit(Buffer.concat(chunks));
} catch (error) {
  // What shrinkToFit does not catch itself: an allocation past the limit while shrinking or encoding.
  const message = error instanceof Error ? error.message : String(error);
  fit = { skipped: `could not be scaled within ${DECODER_MEMORY_MB / 1024} GB of memory (${message})` };
}
process.stdout.write(JSON.stringify({ fit, peakRssKb: peakRssKb() }));
