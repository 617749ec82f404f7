// `npm run bench [-- --quick] [-- --out FILE]`: measures issue 5's six costs on the bundled action and CLI
// against the local GitHub emulator and a zero-latency scripted model, prints one table with a verdict per
// target, and writes every number to .bench/results.json. Timings are medians of repeated runs.
import { execFileSync } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { cpus, loadavg, platform, release, totalmem } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { ROOT } from '../tests/support/action-harness.js';
import { measureFirstWrite, measureTraffic } from '../tests/support/bench/action.js';
import {
  measureCacheableShare,
  measureClearingShare,
  measurePeakMemory,
} from '../tests/support/bench/cli.js';
import { measureColdLoop } from '../tests/support/bench/cold-loop.js';
import { compactionTable, measureCompaction } from '../tests/support/bench/compaction.js';
import { measureDistSize } from '../tests/support/bench/dist.js';
import { measureLoopOverhead } from '../tests/support/bench/loop.js';
import { measureSandboxCost } from '../tests/support/bench/sandbox.js';
import { measureMcpCost } from '../tests/support/bench/mcp.js';
import { measureWaits } from '../tests/support/bench/waits.js';
import { measureHostileInputs } from '../tests/support/bench/hostile.js';
import { measureNetworkCost } from '../tests/support/bench/network.js';
import { measureDiscovery } from '../tests/support/bench/discovery.js';
import {
  compareEntries,
  measureStart,
  NODE24,
  traceText,
  type EntryComparison,
  type Runner,
  type StartCost,
} from '../tests/support/bench/start.js';
import {
  discoveryRows,
  networkRows,
  startRows,
  renderTable,
  verdicts,
  type BenchResults,
  type Row,
} from '../tests/support/bench/report.js';
import { checkRequest } from '../tests/support/github/openapi.js';

/** Runs per measure; `--quick` keeps the bench well under a minute, the full set under three. */
const REPS = {
  full: {
    firstWrite: 7,
    loop: [31, 11, 7],
    coldLoop: [9, 5, 3],
    traffic: 3,
    paced: 1,
    share: 3,
    memory: 3,
    sandbox: [5, 41],
    waits: 5,
    filter: 21,
    network: 5,
    mcp: 41,
    discovery: 9,
    start: 5,
  },
  quick: {
    firstWrite: 2,
    loop: [9, 3, 1],
    coldLoop: [2, 1, 1],
    traffic: 1,
    paced: 0,
    share: 1,
    memory: 1,
    sandbox: [2, 9],
    waits: 1,
    filter: 5,
    network: 1,
    mcp: 9,
    discovery: 3,
    start: 1,
  },
};
const LOOP_TURNS = [10, 100, 300];
/** A model reply every 250 ms: slow enough for the checklist to move while the run goes on. */
const PACED_LATENCY_MS = 250;
/** Measure 8 runs with GitHub answering at once and after this long (issue 20). */
const GITHUB_LATENCIES_MS = [0, 150];

function gitCommit(): string {
  try {
    return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim();
  } catch {
    return 'unknown';
  }
}

async function step<T>(label: string, measure: () => Promise<T>): Promise<T> {
  const started = Date.now();
  process.stderr.write(`bench: ${label}…`);
  const result = await measure();
  process.stderr.write(` ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
  return result;
}

/** Measure 14, its traces (the median run's of each kind) printed as it ends. */
async function startMeasure(reps: number): Promise<StartCost> {
  const measured = await step('14 start and end, as root and as runner', () => measureStart(reps));
  for (const kind of measured.kinds)
    process.stderr.write(
      `\nbench: the start's trace, ${kind.who}${kind.mcp ? ', two local MCP servers' : ''} ` +
        `(first model request at ${kind.firstModelMs} ms after the spawn):\n${traceText(kind.trace)}\n`,
    );
  return measured;
}

/** `--entry`: builds' start and end side by side, each against the one before (paired medians). */
function entriesTable(compared: EntryComparison): string {
  const head = `${compared.who} on ${compared.node}, ${compared.reps} rounds, each build paired against the one before`;
  const lines = compared.entries.map(
    (e) =>
      `${e.entry}\n  start ${ms(e.firstModelMs)} (${signed(e.startAddedMs)}), ` +
      `end ${ms(e.lastAnswerToExitMs)} (${signed(e.endAddedMs)})`,
  );
  return [head, ...lines].join('\n');
}
const ms = (value: number) => `${Math.round(value).toLocaleString('en-US')} ms`;
const signed = (value: number) => `${value >= 0 ? '+' : '−'}${ms(Math.abs(value))}`;

/** Every measure, 1 to 11, each at the reps given (`quick`: hostile inputs' smaller set). */
async function measureAll(
  reps: (typeof REPS)['full'],
  quick: boolean,
  network: () => Promise<BenchResults['network']>,
): Promise<BenchResults> {
  // Parse GitHub's OpenAPI description now, so the emulator never does it inside a timed run.
  checkRequest('GET', '/repos/octo-org/hello-world', undefined);
  const distSize = await measureDistSize();
  if (distSize.staleSource)
    process.stderr.write(
      `bench: warning: ${distSize.staleSource} is newer than dist/index.js; run \`npm run build\` first\n`,
    );

  const results: BenchResults = {
    firstWrite: await step('1 first GitHub write', () => measureFirstWrite(reps.firstWrite)),
    loopOverhead: await step('2 loop overhead', () => measureLoopOverhead(LOOP_TURNS, reps.loop)),
    coldLoop: await step('2′ loop in the bundled CLI', () => measureColdLoop(LOOP_TURNS, reps.coldLoop)),
    githubRequests: {
      zeroLatency: await step('3 GitHub traffic', () => measureTraffic(reps.traffic)),
      ...(reps.paced > 0
        ? {
            paced: await step(`3 GitHub traffic, model ${PACED_LATENCY_MS} ms/reply`, () =>
              measureTraffic(reps.paced, { modelLatencyMs: PACED_LATENCY_MS }),
            ),
          }
        : {}),
    },
    cacheableShare: await step('4 cacheable share', () => measureCacheableShare(reps.share)),
    clearingShare: await step('4 cacheable share with clearing, 300 turns', () => measureClearingShare()),
    peakMemory: await step('5 peak memory', () => measurePeakMemory(reps.memory)),
    distSize,
    sandbox: await step('7 sandbox', () => measureSandboxCost(reps.sandbox[0]!, reps.sandbox[1]!)),
    waits: [],
    hostileInputs: await step('9 hostile inputs', () => measureHostileInputs(reps.filter, quick)),
    network: await network(),
    mcp: await step('11 MCP servers', () => measureMcpCost(reps.mcp)),
    discovery: await step('13 allowlist discovery', () => measureDiscovery(reps.discovery)),
    start: await startMeasure(reps.start),
  };
  for (const latency of GITHUB_LATENCIES_MS)
    results.waits.push(await step(`8 waits, GitHub ${latency} ms`, () => measureWaits(reps.waits, latency)));

  return results;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      quick: { type: 'boolean', default: false },
      out: { type: 'string' },
      /**
       * `network`: measure 10 alone (it reaches the npm registry, and takes a while). `discovery`: measure
       * 13 alone (the allowlist's toolchains asked before the first command). `compaction`: the
       * 300-turn script on a compacting model, with compaction and with clearing (issue 36). `start`: 14
       * alone (issue 37).
       */
      only: { type: 'string' },
      /**
       * With `--only start`: builds to compare, oldest first, each a `dist/index.js` (an earlier commit's,
       * from a `git worktree add --detach`), run in turns as the runner user on Node 24.
       */
      entry: { type: 'string', multiple: true },
      /** With `--entry`: run them as root on this node instead (`root`), or on Node 24 (`root24`). */
      as: { type: 'string' },
      /** Rounds of measure 14 (or of the builds compared), instead of `--quick`'s or the full run's. */
      reps: { type: 'string' },
    },
  });
  const reps = { ...(values.quick ? REPS.quick : REPS.full) };
  if (values.reps !== undefined) reps.start = Number(values.reps);
  if (!Number.isInteger(reps.start) || reps.start < 1)
    throw new Error(`bench: --reps takes a whole number of rounds, not ${values.reps}`);
  const out = resolve(values.out ?? join(ROOT, '.bench/results.json'));
  const started = Date.now();
  const loadBefore = loadavg()[0] ?? 0;

  const network = () => step('10 network gate', () => measureNetworkCost(reps.network, !values.quick));
  let results: Partial<BenchResults>;
  let rows: Row[];
  /** A measure run alone with a table of its own: its JSON under `key`, the table and the load printed. */
  const alone = async (key: string, measured: unknown, table: string) => {
    await mkdir(dirname(out), { recursive: true });
    await writeFile(out, `${JSON.stringify({ [key]: measured, load: loadavg() }, null, 2)}\n`);
    process.stdout.write(
      `\n${table}\n\nload ${loadBefore.toFixed(2)} → ${(loadavg()[0] ?? 0).toFixed(2)}, ${Math.round((Date.now() - started) / 1000)} s. Written to ${out}\n`,
    );
  };
  if (values.only === 'compaction') {
    const measured = await step('12 compaction against clearing, 300 turns', () => measureCompaction());
    return alone('compaction', measured, compactionTable(measured));
  }
  if (values.entry) {
    if (values.only !== 'start')
      throw new Error('bench: --entry compares builds of measure 14: add --only start');
    const entries = values.entry.map((entry) => resolve(entry));
    const users: Record<string, Runner> = {
      root: { who: 'root', node: process.execPath },
      root24: { who: 'root', node: NODE24 },
    };
    const user = values.as === undefined ? undefined : users[values.as];
    if (values.as !== undefined && !user)
      throw new Error(`bench: --as takes root or root24, not ${values.as}`);
    const compared = await step(`14 start and end of ${entries.length} builds`, () =>
      compareEntries(entries, reps.start, ...(user ? [user] : [])),
    );
    return alone('entries', compared, entriesTable(compared));
  }
  if (values.only === 'discovery') {
    const measured = await step('13 allowlist discovery', () => measureDiscovery(reps.discovery));
    results = { discovery: measured };
    rows = discoveryRows(measured);
  } else if (values.only === 'start') {
    const measured = await startMeasure(reps.start);
    results = { start: measured };
    rows = startRows(measured);
  } else if (values.only === 'network') {
    const measured = await network();
    results = { network: measured };
    rows = networkRows(measured);
  } else {
    const all = await measureAll(reps, values.quick, network);
    results = all;
    rows = verdicts(all);
  }
  const meta = {
    date: new Date(started).toISOString(),
    commit: gitCommit(),
    quick: values.quick,
    reps,
    node: process.version,
    os: `${platform()} ${release()}`,
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model ?? 'unknown',
    memoryGb: Math.round(totalmem() / 1e9),
    loadAverage: { before: loadBefore, after: loadavg()[0] ?? 0 },
    seconds: Math.round((Date.now() - started) / 1000),
  };
  await mkdir(dirname(out), { recursive: true });
  await writeFile(out, `${JSON.stringify({ meta, ...results, verdicts: rows }, null, 2)}\n`);

  const failed = rows.filter((row) => row.verdict === 'FAIL').length;
  process.stdout.write(
    `\n${renderTable(rows)}\n\n${meta.cpus} cores, node ${meta.node}, load ${meta.loadAverage.before.toFixed(2)} → ` +
      `${meta.loadAverage.after.toFixed(2)}, ${meta.seconds} s${values.quick ? ' (--quick)' : ''}. ` +
      `${failed === 0 ? 'Every target met.' : `${failed} check(s) missed.`} Written to ${out}\n`,
  );
}

await main();
