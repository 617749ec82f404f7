// Bench measures 4 and 5: the bundled CLI (dist/cli.js) against a zero-latency scripted model.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from '../action-harness.js';
import {
  startModelServer,
  type ModelMode,
  type RecordedRequest,
  type ScriptedModelServer,
  type ScriptStep,
} from '../anthropic/server.js';
import { bigOutputScript, LONG_RUN_FILE, longReadScript, longRunFileText, workScript } from './scripts.js';
import { median, prefixReuse } from './stats.js';
import { HELLO_FILES } from '../anthropic/scenarios.js';

const CLI = join(ROOT, 'dist/cli.js');
const KEY = 'sk-ant-bench-key-000000000000000000000';
const GNU_TIME = '/usr/bin/time';

interface CliRun {
  stdout: string;
  stderr: string;
  requests: RecordedRequest[];
  /** Peak resident set of the CLI process in KiB (as both GNU time and /proc report it), when asked for. */
  peakRssKb?: number;
}

/** Reads VmHWM (peak RSS) from /proc as the CLI exits, for machines without GNU time. */
const HWM_HOOK = `data:text/javascript,${encodeURIComponent(
  "import{readFileSync,writeFileSync}from'node:fs';process.on('exit',()=>{const m=/VmHWM:\\s+(\\d+)/.exec(readFileSync('/proc/self/status','utf8'));writeFileSync(process.env.BENCH_HWM_FILE,m?m[1]:'')});",
)}`;

interface CliOptions {
  measureMemory?: boolean;
  /** More flags after the task. */
  flags?: string[];
  mode?: ModelMode;
  /** Files on top of the hello-world ones. */
  files?: Record<string, string>;
  /** Called with the run's directory after the CLI exits, before it is removed. */
  inspect?: (dir: string) => Promise<void>;
}

/** What went wrong in a bench run of the CLI: its exit code, the server's violations, steps it never played. */
export function runProblems(code: number | null, server: ScriptedModelServer): string[] {
  return [
    ...(code === 0 ? [] : [`exit code ${code}`]),
    ...server.violations.map((v) => v.message),
    ...(server.remaining() === 0 ? [] : [`${server.remaining()} script steps unplayed`]),
  ];
}

/** Runs `node dist/cli.js <task>` in a fresh copy of the hello-world files; it must exit 0 cleanly. */
export async function runCli(script: ScriptStep[], task: string, options: CliOptions = {}): Promise<CliRun> {
  const { measureMemory = false, flags = [], mode = 'classic', files = {} } = options;
  const dir = await mkdtemp(join(tmpdir(), 'todo-agent-bench-cli-'));
  const server = await startModelServer(script, { apiKey: KEY, mode });
  try {
    for (const [path, content] of Object.entries({ ...HELLO_FILES, ...files }))
      await writeFile(join(dir, path), content);
    const hwmFile = join(dir, '.hwm');
    const useTime = measureMemory && existsSync(GNU_TIME);
    const node = [
      process.execPath,
      ...(measureMemory && !useTime ? ['--import', HWM_HOOK] : []),
      CLI,
      task,
      ...flags,
    ];
    const [command, ...args] = useTime ? [GNU_TIME, '-v', ...node] : node;
    const child = spawn(command!, args, {
      cwd: dir,
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        HOME: dir,
        LANG: 'C.UTF-8',
        ANTHROPIC_API_KEY: KEY,
        ANTHROPIC_BASE_URL: server.url,
        BENCH_HWM_FILE: hwmFile,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const code = await new Promise<number | null>((done) => child.on('close', done));
    const problems = runProblems(code, server);
    if (problems.length > 0)
      throw new Error(`bench: the CLI run went wrong: ${problems.join('; ')}\n${stderr.slice(-2000)}`);
    const run: CliRun = { stdout, stderr, requests: server.requests };
    if (measureMemory) {
      const kb = useTime
        ? /Maximum resident set size \(kbytes\): (\d+)/.exec(stderr)?.[1]
        : await readFile(hwmFile, 'utf8');
      if (!kb) throw new Error('bench: could not read the CLI peak RSS');
      run.peakRssKb = Number(kb);
    }
    await options.inspect?.(dir);
    return run;
  } finally {
    await server.close();
    await rm(dir, { recursive: true, force: true });
  }
}

export interface ShareRun {
  /** cache_read / (input + cache_read + cache_creation), from the usage the server reported. */
  reportedShare: number;
  /** The same share computed here from the recorded request bodies. */
  computedShare: number;
  inputTokens: number;
  cacheReadTokens: number;
  cacheCreationTokens: number;
  /** All input tokens by the server's usage, and by this bench's own count: they must agree. */
  reportedTotalTokens: number;
  computedTotalTokens: number;
  requests: number;
}

export interface CacheableShare {
  turns: number;
  medianReportedShare: number;
  medianComputedShare: number;
  runs: ShareRun[];
}

/** Measure 4: the share of input tokens that could be read from the prompt cache, over a `turns`-turn run. */
export async function measureCacheableShare(reps: number, turns = 30): Promise<CacheableShare> {
  const runs: ShareRun[] = [];
  for (let rep = 0; rep < reps; rep++) {
    const { stdout, requests } = await runCli(workScript({ items: 5, turns }), 'work through a 5-part plan');
    const tokens = /tokens: (\d+) in, (\d+) cache read, (\d+) cache write/.exec(stdout);
    if (!tokens) throw new Error('bench: the CLI printed no token line');
    const [input, read, creation] = tokens.slice(1).map(Number) as [number, number, number];
    const computed = prefixReuse(requests.map((r) => r.body));
    runs.push({
      reportedShare: read / (input + read + creation),
      computedShare: computed.share,
      inputTokens: input,
      cacheReadTokens: read,
      cacheCreationTokens: creation,
      reportedTotalTokens: input + read + creation,
      computedTotalTokens: computed.total,
      requests: requests.length,
    });
  }
  return {
    turns,
    medianReportedShare: median(runs.map((r) => r.reportedShare)),
    medianComputedShare: median(runs.map((r) => r.computedShare)),
    runs,
  };
}

export interface ClearingShare {
  turns: number;
  budget: number;
  fileTokens: number;
  requests: number;
  clearings: number;
  /** cache_read / all input tokens, from the usage the server reported for each turn. */
  share: number;
  inputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  /** Cache writes of the requests right after a clearing: the whole kept conversation written anew. */
  clearingWriteTokens: number;
  /** The same at Sonnet 5.5's 5-minute cache-write price, in USD, against the run's estimated cost. */
  clearingWriteUsd: number;
  costUsd: number;
  largestPrompt: number;
}

type TurnUsage = {
  input_tokens: number;
  cache_read_input_tokens: number;
  cache_creation_input_tokens: number;
};
/** A line of the CLI's `--events` log, as far as this measure reads it. */
interface LoggedEvent {
  type: string;
  kind?: string;
  turn: number;
  usage?: TurnUsage;
  costUsd?: number;
}
type TurnEndEvent = LoggedEvent & { usage: TurnUsage; costUsd: number };

/**
 * A `turns`-turn run of `longReadScript` on Claude Sonnet 5.5 (the server's `sonnet-5-5` mode) held to
 * `--max-context-tokens budget`, every turn reading a file of about `fileTokens` tokens, `flags` before the
 * budget's; hands back the run and its `--events` log, one parsed line an event.
 */
export async function longReadRun<Event>(
  turns: number,
  budget: number,
  fileTokens: number,
  flags: string[] = [],
): Promise<{ run: CliRun; events: Event[] }> {
  let events: Event[] = [];
  const run = await runCli(longReadScript(turns), 'Summarise the logs', {
    mode: 'sonnet-5-5',
    flags: [
      ...flags,
      '--max-context-tokens',
      String(budget),
      '--max-turns',
      String(turns + 10),
      '--events',
      'events.jsonl',
    ],
    files: { [LONG_RUN_FILE]: longRunFileText(fileTokens * 4) },
    inspect: async (dir) => {
      const lines = (await readFile(join(dir, 'events.jsonl'), 'utf8')).trim().split('\n');
      events = lines.map((line) => JSON.parse(line) as Event);
    },
  });
  return { run, events };
}

/**
 * Measure 4, with clearing: a `turns`-turn run on Claude Sonnet 5.5 (the server's `sonnet-5-5` mode) held to
 * `--max-context-tokens budget`, every turn reading a file of about `fileTokens` tokens. From the CLI's
 * `--events` log: the share of input tokens read from the cache, and the cache writes of the requests that
 * follow a clearing (each rewrites the whole kept conversation, its thinking taken out).
 */
export async function measureClearingShare(
  turns = 300,
  budget = 200_000,
  fileTokens = 2_500,
): Promise<ClearingShare> {
  const { run, events } = await longReadRun<LoggedEvent>(turns, budget, fileTokens);
  const ends = events.filter((e): e is TurnEndEvent => e.type === 'turn_end');
  const clearedAt = new Set(
    events.filter((e) => e.type === 'nudge' && e.kind === 'context_cleared').map((e) => e.turn),
  );
  const sum = (list: TurnEndEvent[], pick: (u: TurnUsage) => number) =>
    list.reduce((total, e) => total + pick(e.usage), 0);
  const afterClearing = ends.filter((e) => clearedAt.has(e.turn - 1));
  const input = sum(ends, (u) => u.input_tokens);
  const read = sum(ends, (u) => u.cache_read_input_tokens);
  const write = sum(ends, (u) => u.cache_creation_input_tokens);
  const clearingWrite = sum(afterClearing, (u) => u.cache_creation_input_tokens);
  return {
    turns,
    budget,
    fileTokens,
    requests: run.requests.length,
    clearings: clearedAt.size,
    share: read / (input + read + write),
    inputTokens: input,
    cacheReadTokens: read,
    cacheWriteTokens: write,
    clearingWriteTokens: clearingWrite,
    clearingWriteUsd: (clearingWrite * 2.5) / 1_000_000,
    costUsd: ends.at(-1)?.costUsd ?? 0,
    largestPrompt: Math.max(
      ...ends.map(
        (e) => e.usage.input_tokens + e.usage.cache_read_input_tokens + e.usage.cache_creation_input_tokens,
      ),
    ),
  };
}

export interface PeakMemory {
  /** MB are 10^6 bytes here, as in the dist sizes. */
  medianPeakRssMb: number;
  method: string;
  /** Characters of the 100 MB the bash tool reported cutting: proof the output really went through. */
  charactersCut: number;
  runs: number[];
}

/** Measure 5: the CLI's peak RSS while a bash call prints 100 MB. */
export async function measurePeakMemory(reps: number): Promise<PeakMemory> {
  const peaks: number[] = [];
  let charactersCut = 0;
  for (let rep = 0; rep < reps; rep++) {
    const run = await runCli(bigOutputScript(), 'print 100 MB', { measureMemory: true });
    peaks.push((run.peakRssKb! * 1024) / 1e6);
    const cut = /\[([\d,]+) characters cut/.exec(JSON.stringify(run.requests.at(-1)?.body ?? {}));
    charactersCut = Number(cut?.[1]?.replaceAll(',', '') ?? 0);
    if (charactersCut < 99_000_000) throw new Error('bench: the 100 MB output did not reach the bash tool');
  }
  return {
    medianPeakRssMb: median(peaks),
    method: existsSync(GNU_TIME) ? `${GNU_TIME} -v (maximum resident set size)` : 'VmHWM from /proc at exit',
    charactersCut,
    runs: peaks,
  };
}
