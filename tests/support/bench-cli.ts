// Bench measures 4 and 5: the bundled CLI (dist/cli.js) against a zero-latency scripted model.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from './action-harness.js';
import { startModelServer, type RecordedRequest, type ScriptStep } from './anthropic-server.js';
import { bigOutputScript, workScript } from './bench-scripts.js';
import { median, prefixReuse } from './bench-stats.js';
import { HELLO_FILES } from './scenarios.js';

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

/** Runs `node dist/cli.js <task>` in a fresh copy of the hello-world files; it must exit 0 cleanly. */
async function runCli(script: ScriptStep[], task: string, measureMemory = false): Promise<CliRun> {
  const dir = await mkdtemp(join(tmpdir(), 'todo-agent-bench-cli-'));
  const server = await startModelServer(script, { apiKey: KEY });
  try {
    for (const [path, content] of Object.entries(HELLO_FILES)) await writeFile(join(dir, path), content);
    const hwmFile = join(dir, '.hwm');
    const useTime = measureMemory && existsSync(GNU_TIME);
    const node = [process.execPath, ...(measureMemory && !useTime ? ['--import', HWM_HOOK] : []), CLI, task];
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
    const problems = [
      ...(code === 0 ? [] : [`exit code ${code}`]),
      ...server.violations.map((v) => v.message),
      ...(server.remaining() === 0 ? [] : [`${server.remaining()} script steps unplayed`]),
    ];
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
    const run = await runCli(bigOutputScript(), 'print 100 MB', true);
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
