// Bench measure 2′: the same loop as measure 2, but run by the bundled CLI (dist/cli.js) in a fresh process
// per run, as every action run is, against the scripted model in a process of its own. The process that is
// timed runs exactly what ships, with nothing warmed up: its first turn carries one-off costs (connecting,
// compiling the HTTP parser, the JIT's first passes) that measure 2's warm loop leaves out. Overhead = wall
// time from the first turn's start − time spent waiting on the server (probe.mjs) − tool run time.
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { AgentEvent } from '../../../src/agent/events.js';
import { ROOT } from '../action-harness.js';
import {
  KEY,
  medianByTurns,
  SHARED_MEDIANS,
  timelineFigures,
  TurnLog,
  type ByTurns,
  type LoopFigures,
} from './loop.js';
import { mean, sum } from './stats.js';
import type { ModelServerProcess } from './server-process.js';

const CLI = join(ROOT, 'dist/cli.js');
const PROBE = pathToFileURL(join(ROOT, 'tests/support/bench/probe.mjs')).href;

/** What probe.mjs writes: one entry per model request, in order, and the GC pauses. */
interface ProbeReport {
  requests: {
    createdAt: number;
    sentAt: number;
    doneAt: number;
    /** Event-loop idle time between the last byte sent and the last byte read. */
    waitMs: number;
    busyAtCreate: number;
    busyAtDone: number;
    cpuAtCreate: number;
    cpuAtDone: number;
  }[];
  gc: { at: number; ms: number }[];
}

type Stamped = AgentEvent & { at: number };

export interface ColdLoopRun extends LoopFigures {
  /** The first turn's overhead alone, and the mean over the turns after it. */
  firstTurnMs: number;
  laterMsPerTurn: number;
}

/** Runs the bundled CLI once under the probe; resolves with its event log and the probe's report. */
async function runCli(
  url: string,
  turns: number,
  dir: string,
): Promise<{ events: Stamped[]; probe: ProbeReport }> {
  const eventsFile = join(dir, 'events.jsonl');
  const probeFile = join(dir, 'probe.json');
  const child = spawn(
    process.execPath,
    ['--import', PROBE, CLI, 'benchmark the loop', '--max-turns', String(turns + 5), '--events', eventsFile],
    {
      cwd: dir,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: dir,
        ANTHROPIC_API_KEY: KEY,
        ANTHROPIC_BASE_URL: url,
        BENCH_PROBE_ORIGIN: url,
        BENCH_PROBE_OUT: probeFile,
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const code = await new Promise<number | null>((done) => child.on('close', done));
  if (code !== 0) throw new Error(`bench: the CLI exited ${code}: ${stderr.trim()}`);
  const events = (await readFile(eventsFile, 'utf8'))
    .trimEnd()
    .split('\n')
    .map((line) => JSON.parse(line) as Stamped);
  return { events, probe: JSON.parse(await readFile(probeFile, 'utf8')) as ProbeReport };
}

async function runOnce(server: ModelServerProcess, turns: number, dir: string): Promise<ColdLoopRun> {
  const url = await server.serve('loop', turns);
  const { events, probe } = await runCli(url, turns, dir);
  const end = events.find((event) => event.type === 'end');
  const log = new TurnLog();
  for (const event of events) log.add(event, event.at);
  const startedAt = log.turnStarts[0] ?? 0;
  const { perTurn, figures } = timelineFigures({
    turns,
    result: end?.type === 'end' ? end.result : undefined,
    startedAt,
    endedAt: end?.at ?? 0,
    ...log,
    waits: probe.requests.map((request) => request.waitMs),
    seen: await server.report(),
  });
  const first = probe.requests[0]!;
  const last = probe.requests.at(-1)!;
  return {
    ...figures,
    clientActiveMsPerTurn: (last.busyAtDone - first.busyAtCreate) / turns,
    clientCpuMsPerTurn: (last.cpuAtDone - first.cpuAtCreate) / turns,
    gcMsPerTurn: sum(probe.gc.filter((pause) => pause.at >= startedAt).map((pause) => pause.ms)) / turns,
    firstTurnMs: perTurn[0]!,
    laterMsPerTurn: mean(perTurn.slice(1)),
  };
}

const MEDIAN_FIGURES = [
  ...SHARED_MEDIANS,
  'firstTurnMs',
  'laterMsPerTurn',
] as const satisfies readonly (keyof ColdLoopRun)[];

export type ColdLoopAt = ByTurns<ColdLoopRun, (typeof MEDIAN_FIGURES)[number]>;

/** Measure 2′: median figures at each turn count, with `reps[i]` fresh CLI processes for `turnCounts[i]`. */
export async function measureColdLoop(
  turnCounts: readonly number[],
  reps: readonly number[],
): Promise<{ byTurns: ColdLoopAt[] }> {
  return { byTurns: await medianByTurns(turnCounts, reps, MEDIAN_FIGURES, runOnce) };
}
