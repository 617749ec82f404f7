// A bundled entry measured by ./memory-probe.mjs: the flags and environment that load it, and what it wrote.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

export interface ProcessCost {
  /** The process's own peak resident memory, in KiB. */
  peakRssKb: number;
  /** The longest the event loop was held over the whole run, in milliseconds (10 ms resolution). */
  maxEventLoopDelayMs: number;
  /** How many picture decoders the process started, and the longest hold while one was running. */
  decoders: number;
  maxWhileDecodingMs: number;
}

export interface MemoryProbe {
  nodeArgs: string[];
  env: Record<string, string>;
  /** What the probed process wrote as it exited; the probe's files are gone after. */
  read(): Promise<ProcessCost>;
}

export async function memoryProbe(): Promise<MemoryProbe> {
  const dir = await mkdtemp(join(tmpdir(), 'memory-probe-'));
  const out = join(dir, 'cost.json');
  return {
    nodeArgs: ['--import', pathToFileURL(join(import.meta.dirname, 'memory-probe.mjs')).href],
    env: { MEMORY_PROBE_OUT: out },
    async read() {
      try {
        return JSON.parse(await readFile(out, 'utf8')) as ProcessCost;
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
  };
}
