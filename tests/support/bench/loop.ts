// Bench measure 2: the agent loop's own cost per turn, driving runAgent in-process against a zero-latency
// scripted model that runs in a child process. Overhead = wall time − time spent waiting on the server
// (per request, the time the event loop sat idle between the last byte sent and the last byte received;
// see http-wait.ts) − tool run time.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { AgentEvent, AgentResult } from '../../../src/agent/events.js';
import { runAgent } from '../../../src/agent/loop.js';
import { Model, type TurnRequest } from '../../../src/model/client.js';
import { openWorkspace } from '../../../src/agent/workspace.js';
import { watchServerWaits } from './http-wait.js';
import { SMALL_FILE } from './scripts.js';
import { startModelServerProcess, type ModelServerProcess, type ServerReport } from './server-process.js';
import { linearFit, mean, median, sum } from './stats.js';

/** The key the model server process requires and the clients send. */
export const KEY = 'sk-ant-bench-key-000000000000000000000';
/**
 * One unmeasured run of this many turns first, so that the JIT has compiled the client's and the server's
 * hot code before anything is timed; with a 10-turn warm-up the first measured runs still paid for it.
 */
const WARM_UP_TURNS = 100;

/** Times every `send`, so the SDK and HTTP share can be told apart from the loop's own work. */
class TimedModel extends Model {
  sendMs = 0;

  override async send(request: TurnRequest) {
    const started = performance.now();
    try {
      return await super.send(request);
    } finally {
      this.sendMs += performance.now() - started;
    }
  }
}

/** What measures 2 and 2′ report for every run. */
export interface LoopFigures {
  turns: number;
  /** From the first turn's start to the end of the run. */
  wallMs: number;
  /** Time the client waited on the server: event-loop idle from each request's last byte sent to its end. */
  waitMs: number;
  toolMs: number;
  /** wall − wait − tools, per turn: what the client spends on each turn besides waiting. */
  msPerTurn: number;
  /** CPU time of the client per turn (all threads, tools included): a check on the wall-time figure. */
  clientCpuMsPerTurn: number;
  /**
   * Time per turn the client's event loop was busy, not blocked on I/O (Node's event loop utilisation):
   * a check that leaves out every wait, wherever it falls. Tools' own work is in it, so it runs a little
   * above `msPerTurn`.
   */
  clientActiveMsPerTurn: number;
  /**
   * For comparison with the wait, per turn: the server process's CPU time (all threads), and its own time
   * from request headers parsed to the answer's last byte written (reading the body included).
   */
  serverCpuMsPerTurn: number;
  serverHandlingMsPerTurn: number;
  /** The client's GC pauses per turn, main thread (part of the overhead, wherever they fall). */
  gcMsPerTurn: number;
  /** Size of the last request body: the history every request re-sends. */
  lastBodyBytes: number;
  /** Overhead per turn over the first and the last tenth of the turns: growth within one run. */
  firstTenthMsPerTurn: number;
  lastTenthMsPerTurn: number;
}

export interface LoopRun extends LoopFigures {
  /** Of `msPerTurn`, the time outside `Model.send`: the loop itself (history, reminders, events, tools). */
  loopMsPerTurn: number;
  /** Of `msPerTurn`, the time inside `Model.send` but not waiting (SDK, JSON encoding, HTTP, SSE parsing). */
  clientMsPerTurn: number;
  /** Of the wait per turn, the part after the response headers, while the answer streamed in. */
  waitWhileStreamingMsPerTurn: number;
  /**
   * Overhead per turn fitted against the size of that turn's request: a fixed part, and a part that grows
   * with the bytes re-sent (the history), in µs per kB.
   */
  fixedMsPerTurn: number;
  usPerKb: number;
}

/** Each turn's start and its tools' run time, from the agent's events as they happen or as logged. */
export class TurnLog {
  readonly turnStarts: number[] = [];
  readonly toolMsByTurn: number[] = [];

  add(event: AgentEvent, at: number): void {
    const index = 'turn' in event ? event.turn - 1 : -1;
    if (event.type === 'turn_start') this.turnStarts[index] = at;
    if (event.type === 'tool') this.toolMsByTurn[index] = (this.toolMsByTurn[index] ?? 0) + event.durationMs;
  }
}

/** What either measure recorded of one run: when each turn started, when it ended, and what it waited. */
export interface Timeline {
  turns: number;
  result: AgentResult | undefined;
  /** Where wall time starts and ends (performance.now() or epoch ms: one clock per timeline). */
  startedAt: number;
  endedAt: number;
  turnStarts: readonly number[];
  toolMsByTurn: readonly number[];
  /** Per request, in order: the time the client only waited on the server. */
  waits: readonly number[];
  seen: ServerReport;
}

/**
 * Checks that the run went as scripted (one request per turn, every turn played, no rule broken), then
 * works out the figures both measures take from a timeline; `perTurn` is each turn's overhead.
 */
export function timelineFigures(t: Timeline): {
  perTurn: number[];
  figures: Omit<LoopFigures, 'clientCpuMsPerTurn' | 'clientActiveMsPerTurn' | 'gcMsPerTurn'>;
} {
  const { turns, result, seen, waits, turnStarts, toolMsByTurn } = t;
  if (
    result?.status !== 'completed' ||
    result.turns !== turns ||
    turnStarts.length !== turns ||
    seen.violations.length > 0 ||
    seen.requests !== turns ||
    seen.bodyBytes.length !== turns ||
    waits.length !== turns
  )
    throw new Error(
      `bench: the loop run went wrong: ${result ? `${result.status} after ${result.turns} turns (${result.reason})` : 'no result'}; ` +
        `${seen.requests} requests, ${waits.length} waits timed; ${seen.violations.map((v) => v.message).join('; ')}`,
    );
  // One request per turn (no retries), so the n-th wait belongs to the n-th turn.
  const perTurn = turnStarts.map(
    (start, turn) => (turnStarts[turn + 1] ?? t.endedAt) - start - waits[turn]! - (toolMsByTurn[turn] ?? 0),
  );
  const tenth = Math.max(1, Math.floor(turns / 10));
  const wallMs = t.endedAt - t.startedAt;
  const waitMs = sum(waits);
  const toolMs = sum(toolMsByTurn);
  return {
    perTurn,
    figures: {
      turns,
      wallMs,
      waitMs,
      toolMs,
      msPerTurn: (wallMs - waitMs - toolMs) / turns,
      serverCpuMsPerTurn: seen.cpuMs / turns,
      serverHandlingMsPerTurn: sum(seen.handlingMs) / turns,
      lastBodyBytes: seen.bodyBytes.at(-1)!,
      firstTenthMsPerTurn: mean(perTurn.slice(0, tenth)),
      lastTenthMsPerTurn: mean(perTurn.slice(-tenth)),
    },
  };
}

async function runOnce(server: ModelServerProcess, turns: number, dir: string): Promise<LoopRun> {
  const url = await server.serve('loop', turns);
  const watch = watchServerWaits(url);
  try {
    const model = new TimedModel({ apiKey: KEY, baseURL: url, maxRetries: 0 });
    const log = new TurnLog();
    const cpuAtStart = process.cpuUsage();
    const loopAtStart = performance.eventLoopUtilization();
    const started = performance.now();
    const result = await runAgent({
      task: 'benchmark the loop',
      model,
      workspace: await openWorkspace(dir),
      maxTurns: turns + 5,
      observers: [(event) => log.add(event, performance.now())],
    });
    const ended = performance.now();
    const cpu = process.cpuUsage(cpuAtStart);
    const loop = performance.eventLoopUtilization(loopAtStart);
    const { waits, beforeHeadersMs, gcMs } = watch.stop();
    const seen = await server.report();
    const { perTurn, figures } = timelineFigures({
      turns,
      result,
      startedAt: started,
      endedAt: ended,
      ...log,
      waits,
      seen,
    });
    const bySize = linearFit(
      seen.bodyBytes.map((bytes) => bytes / 1000),
      perTurn,
    );
    return {
      ...figures,
      loopMsPerTurn: (figures.wallMs - model.sendMs - figures.toolMs) / turns,
      clientMsPerTurn: (model.sendMs - figures.waitMs) / turns,
      clientCpuMsPerTurn: (cpu.user + cpu.system) / 1000 / turns,
      clientActiveMsPerTurn: loop.active / turns,
      waitWhileStreamingMsPerTurn: (figures.waitMs - beforeHeadersMs) / turns,
      gcMsPerTurn: gcMs / turns,
      fixedMsPerTurn: bySize.intercept,
      usPerKb: bySize.slope * 1000,
    };
  } finally {
    watch.stop();
  }
}

/** The figures both measures report as medians over their runs. */
export const SHARED_MEDIANS = [
  'msPerTurn',
  'clientCpuMsPerTurn',
  'clientActiveMsPerTurn',
  'serverCpuMsPerTurn',
  'serverHandlingMsPerTurn',
  'gcMsPerTurn',
  'firstTenthMsPerTurn',
  'lastTenthMsPerTurn',
  'lastBodyBytes',
] as const satisfies readonly (keyof LoopFigures)[];

/** The runs at one turn count, with the median of each listed figure. */
export type ByTurns<Run, Figure extends keyof Run> = { turns: number; runs: Run[] } & Record<Figure, number>;

const MEDIAN_FIGURES = [
  ...SHARED_MEDIANS,
  'loopMsPerTurn',
  'clientMsPerTurn',
  'waitWhileStreamingMsPerTurn',
  'fixedMsPerTurn',
  'usPerKb',
] as const satisfies readonly (keyof LoopRun)[];

export type LoopOverheadAt = ByTurns<LoopRun, (typeof MEDIAN_FIGURES)[number]>;

export interface LoopOverhead {
  byTurns: LoopOverheadAt[];
  /** ms/turn at the most turns over ms/turn at the fewest: 1 means the total grows linearly. */
  growth: number;
}

/**
 * Runs `runOnce` `reps[i]` times with `turnCounts[i]` turns, after one unmeasured warm-up run, against one
 * model server process and in one workspace holding the small file, and takes the median of each figure.
 * Measures 2 and 2′ share it.
 */
export async function medianByTurns<Run extends { turns: number }, Figure extends keyof Run>(
  turnCounts: readonly number[],
  reps: readonly number[],
  figures: readonly Figure[],
  runOnce: (server: ModelServerProcess, turns: number, dir: string) => Promise<Run>,
): Promise<ByTurns<Run, Figure>[]> {
  const server = startModelServerProcess(KEY);
  let dir: string | undefined;
  try {
    dir = await mkdtemp(join(tmpdir(), 'todo-agent-bench-loop-'));
    await writeFile(join(dir, SMALL_FILE.path), SMALL_FILE.content);
    await runOnce(server, WARM_UP_TURNS, dir);
    const byTurns: ByTurns<Run, Figure>[] = [];
    for (const [i, turns] of turnCounts.entries()) {
      const runs: Run[] = [];
      for (let rep = 0; rep < (reps[i] ?? 1); rep++) runs.push(await runOnce(server, turns, dir));
      const medians = figures.map((figure) => [figure, median(runs.map((run) => Number(run[figure])))]);
      byTurns.push({ turns, runs, ...Object.fromEntries(medians) } as ByTurns<Run, Figure>);
    }
    return byTurns;
  } finally {
    await server.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  }
}

/** Measure 2: median overhead per turn at each turn count, with `reps[i]` runs for `turnCounts[i]`. */
export async function measureLoopOverhead(
  turnCounts: readonly number[],
  reps: readonly number[],
): Promise<LoopOverhead> {
  const byTurns = await medianByTurns(turnCounts, reps, MEDIAN_FIGURES, runOnce);
  const first = byTurns[0]!;
  const last = byTurns.at(-1)!;
  return { byTurns, growth: last.msPerTurn / first.msPerTurn };
}
