// Pictures are decoded in a process of their own, never in the action's. A picture is the one input a
// stranger shapes byte for byte that gets expanded in memory (a PNG of half a megabyte can inflate to
// gigabytes), and the decoders are synchronous JavaScript that would hold the event loop for seconds. The
// process gets a hard memory limit (RLIMIT_DATA: every private writable mapping counts, V8's heap, Buffers and
// WebAssembly memory alike), a limit on processor time (RLIMIT_CPU) and on time on the clock, no environment,
// and one image at a time; whatever becomes of it, the action goes on and the picture is skipped with the reason.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { DECODE_TIMEOUT_MS, DECODER_CPU_SECONDS, DECODER_MEMORY_MB, type Fit } from './fitted.js';

/** The decoder's bundle, beside the action's and the CLI's in dist/. */
const BUNDLE = 'image-decoder.js';
/** Its answer holds one image of at most 5 MB of base64: anything much longer is not an answer. */
const MAX_ANSWER_CHARS = 8 * 1024 * 1024;

const ANSWER = z.object({
  fit: z.union([
    z.object({
      image: z.object({
        mediaType: z.enum(['image/png', 'image/jpeg', 'image/gif', 'image/webp']),
        data: z.string(),
        width: z.number().int().positive(),
        height: z.number().int().positive(),
        scaledFrom: z.object({ width: z.number(), height: z.number() }).optional(),
      }),
    }),
    z.object({ skipped: z.string() }),
  ]),
  peakRssKb: z.number(),
});

export interface Decoded {
  fit: Fit;
  /** The decoder's peak resident memory, when it lived to say. */
  peakRssKb?: number;
  ms: number;
}

export interface DecodeOptions {
  signal?: AbortSignal;
  /** The decoder's bundle; by default the one beside this module's, or run from source its TypeScript. */
  bundle?: string;
}

/** How to start the decoder: its bundle where there is one, else (run from source) its TypeScript through tsx. */
function command(bundle?: string): { args: string[]; cwd: string } {
  const here = dirname(fileURLToPath(import.meta.url));
  const beside = bundle ?? join(here, BUNDLE);
  if (existsSync(beside)) return { args: [beside], cwd: dirname(beside) };
  return { args: ['--import', 'tsx', join(here, 'decoding', 'decoder-main.ts')], cwd: join(here, '../..') };
}

let queue: Promise<unknown> = Promise.resolve();

/** `bytes` made fit in the decoder's process, one image at a time across the whole process. */
export function decodeInChildProcess(bytes: Uint8Array, options: DecodeOptions = {}): Promise<Decoded> {
  const turn = queue.then(() => runDecoder(bytes, options));
  queue = turn.catch(() => undefined);
  return turn;
}

const skipped = (why: string, started: number): Decoded => ({
  fit: { skipped: why },
  ms: performance.now() - started,
});

function runDecoder(bytes: Uint8Array, { signal, bundle }: DecodeOptions): Promise<Decoded> {
  const started = performance.now();
  if (signal?.aborted) return Promise.resolve(skipped(`not decoded: ${stopped(signal)}`, started));
  const { args, cwd } = command(bundle);
  // The limits are set by the shell the decoder is started through (Node has no setrlimit), which then
  // becomes the decoder: `exec` keeps the process, its limits and its pid.
  const limits = `ulimit -d ${DECODER_MEMORY_MB * 1024} && ulimit -t ${DECODER_CPU_SECONDS}`;
  const child = spawn('/bin/sh', ['-c', `${limits} && exec "$0" "$@"`, process.execPath, ...args], {
    cwd,
    env: {},
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  return new Promise((resolve) => {
    let answer = '';
    let stderr = '';
    let why: string | undefined;
    const stop = (reason: string) => {
      why ??= reason;
      child.kill('SIGKILL');
    };
    const timer = setTimeout(
      () => stop(`took over ${DECODE_TIMEOUT_MS / 1000} s to decode`),
      DECODE_TIMEOUT_MS,
    );
    const onAbort = () => stop('not decoded: the run was cancelled');
    signal?.addEventListener('abort', onAbort, { once: true });
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      answer += chunk;
      if (answer.length > MAX_ANSWER_CHARS) stop('the decoder answered with too much');
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr = (stderr + chunk).slice(-2000)));
    // A decoder that dies before reading everything closes its stdin: that is told by its exit, not here.
    child.stdin.on('error', () => undefined);
    child.stdin.end(bytes);
    child.on('error', (error) => stop(`the decoder could not start (${error.message})`));
    child.on('close', (code, exitSignal) => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      const ms = performance.now() - started;
      if (why) return resolve({ fit: { skipped: why }, ms });
      const parsed = code === 0 ? ANSWER.safeParse(parseJson(answer)) : undefined;
      if (parsed?.success) return resolve({ ...parsed.data, ms });
      resolve({ fit: { skipped: failure(code, exitSignal, stderr) }, ms });
    });
  });
}

/** Why the caller stopped the decode: its signal's reason. */
function stopped(signal: AbortSignal | undefined): string {
  const reason: unknown = signal?.reason;
  return reason instanceof Error ? reason.message : 'stopped';
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** Why a decoder that gave no answer stopped: out of memory (V8's or the allocator's abort), or otherwise. */
function failure(code: number | null, signal: NodeJS.Signals | null, stderr: string): string {
  const memory = `too large to decode within ${DECODER_MEMORY_MB / 1024} GB of memory`;
  if (signal === 'SIGXCPU') return `took over ${DECODER_CPU_SECONDS} s of processor time to decode`;
  if (signal === 'SIGABRT' || signal === 'SIGTRAP' || code === 134 || code === 133) return memory;
  if (/out of memory|bad_alloc|Allocation failed/i.test(stderr)) return memory;
  return `the decoder stopped (${signal ?? `exit code ${code}`})`;
}
