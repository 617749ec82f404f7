// Bench measure 2: the agent loop's own cost per turn, driving runAgent in-process against a zero-latency
// scripted model that runs in a child process. Overhead = wall time − time spent waiting on the server
// (per request, from the last byte sent to the response headers, less our own GC pauses in between; see
// bench-http-wait.ts) − tool run time.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { AgentEvent } from '../../src/agent/events.js';
import { runAgent } from '../../src/agent/loop.js';
import { Model, type TurnRequest } from '../../src/agent/model.js';
import { openWorkspace } from '../../src/agent/workspace.js';
import { watchServerWaits } from './bench-http-wait.js';
import { SMALL_FILE } from './bench-scripts.js';
import { startModelServerProcess } from './bench-server-process.js';
import { median } from './bench-stats.js';

const KEY = 'sk-ant-bench-key-000000000000000000000';

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

export interface LoopRun {
  turns: number;
  wallMs: number;
  /** Time the client waited on the server, from each request's last byte sent to its response headers. */
  waitMs: number;
  toolMs: number;
  /** wall − wait − tools, per turn: what the runner spends on each turn besides waiting. */
  msPerTurn: number;
  /** Of that, the time outside `Model.send` (the loop itself: history, reminders, events, tools' wrapper). */
  loopMsPerTurn: number;
  /** Of that, the time inside `Model.send` but not waiting (SDK, JSON encoding, HTTP, SSE parsing). */
  clientMsPerTurn: number;
  /** CPU time of this process per turn (all threads, tools included): a check on the wall-time figure. */
  clientCpuMsPerTurn: number;
  /** CPU time of the server's process per turn, and its own time per request, to compare with the wait. */
  serverCpuMsPerTurn: number;
  serverHandlingMsPerTurn: number;
  /** This process's GC pauses per turn, and the part of them that fell inside waits (billed to the client). */
  gcMsPerTurn: number;
  gcInWaitsMsPerTurn: number;
  /** Size of the last request body: the history every request re-sends. */
  lastBodyBytes: number;
  /** Overhead per turn over the first and the last tenth of the turns: growth within one run. */
  firstTenthMsPerTurn: number;
  lastTenthMsPerTurn: number;
}

const mean = (values: readonly number[]) => values.reduce((a, b) => a + b, 0) / values.length;
const sum = (values: readonly (number | undefined)[]) => values.reduce<number>((a, b) => a + (b ?? 0), 0);

async function runOnce(turns: number, dir: string): Promise<LoopRun> {
  const server = await startModelServerProcess('loop', turns, KEY);
  const watch = watchServerWaits(server.url);
  try {
    const model = new TimedModel({ apiKey: KEY, baseURL: server.url, maxRetries: 0 });
    const turnStarts: number[] = [];
    const toolMsByTurn: number[] = [];
    const observer = (event: AgentEvent): void => {
      if (event.type === 'turn_start') turnStarts[event.turn - 1] = performance.now();
      if (event.type === 'tool')
        toolMsByTurn[event.turn - 1] = (toolMsByTurn[event.turn - 1] ?? 0) + event.durationMs;
    };
    const cpuAtStart = process.cpuUsage();
    const started = performance.now();
    const result = await runAgent({
      task: 'benchmark the loop',
      model,
      workspace: await openWorkspace(dir),
      maxTurns: turns + 5,
      observers: [observer],
    });
    const ended = performance.now();
    const cpu = process.cpuUsage(cpuAtStart);
    const { waits, gcMs, gcInWaitsMs } = watch.stop();
    const seen = await server.report();
    if (
      result.status !== 'completed' ||
      result.turns !== turns ||
      seen.violations.length > 0 ||
      seen.requests !== turns ||
      waits.length !== turns
    )
      throw new Error(
        `bench: the loop run went wrong: ${result.status} after ${result.turns} turns (${result.reason}); ` +
          `${seen.requests} requests, ${waits.length} waits timed; ${seen.violations.map((v) => v.message).join('; ')}`,
      );
    // One request per turn (no retries), so the n-th wait belongs to the n-th turn.
    const overheadOf = (turn: number): number => {
      const end = turnStarts[turn + 1] ?? ended;
      return end - turnStarts[turn]! - waits[turn]! - (toolMsByTurn[turn] ?? 0);
    };
    const perTurn = Array.from({ length: turns }, (_, turn) => overheadOf(turn));
    const tenth = Math.max(1, Math.floor(turns / 10));
    const wallMs = ended - started;
    const waitMs = sum(waits);
    const toolMs = sum(toolMsByTurn);
    return {
      turns,
      wallMs,
      waitMs,
      toolMs,
      msPerTurn: (wallMs - waitMs - toolMs) / turns,
      loopMsPerTurn: (wallMs - model.sendMs - toolMs) / turns,
      clientMsPerTurn: (model.sendMs - waitMs) / turns,
      clientCpuMsPerTurn: (cpu.user + cpu.system) / 1000 / turns,
      serverCpuMsPerTurn: seen.cpuMs / turns,
      serverHandlingMsPerTurn: sum(seen.handlingMs) / turns,
      gcMsPerTurn: gcMs / turns,
      gcInWaitsMsPerTurn: gcInWaitsMs / turns,
      lastBodyBytes: seen.lastBodyBytes,
      firstTenthMsPerTurn: mean(perTurn.slice(0, tenth)),
      lastTenthMsPerTurn: mean(perTurn.slice(-tenth)),
    };
  } finally {
    watch.stop();
    await server.close();
  }
}

export interface LoopOverheadAt {
  turns: number;
  msPerTurn: number;
  loopMsPerTurn: number;
  clientMsPerTurn: number;
  clientCpuMsPerTurn: number;
  serverCpuMsPerTurn: number;
  serverHandlingMsPerTurn: number;
  gcMsPerTurn: number;
  gcInWaitsMsPerTurn: number;
  firstTenthMsPerTurn: number;
  lastTenthMsPerTurn: number;
  runs: LoopRun[];
}

export interface LoopOverhead {
  byTurns: LoopOverheadAt[];
  /** ms/turn at the most turns over ms/turn at the fewest: 1 means the total grows linearly. */
  growth: number;
}

/** Measure 2: median overhead per turn at each turn count, with `reps[i]` runs for `turnCounts[i]`. */
export async function measureLoopOverhead(
  turnCounts: readonly number[],
  reps: readonly number[],
): Promise<LoopOverhead> {
  const dir = await mkdtemp(join(tmpdir(), 'todo-agent-bench-loop-'));
  try {
    await writeFile(join(dir, SMALL_FILE.path), SMALL_FILE.content);
    // One unmeasured run first, so the JIT has seen the code before the short runs are timed.
    await runOnce(turnCounts[0] ?? 10, dir);
    const byTurns: LoopOverheadAt[] = [];
    for (const [i, turns] of turnCounts.entries()) {
      const runs: LoopRun[] = [];
      for (let rep = 0; rep < (reps[i] ?? 1); rep++) runs.push(await runOnce(turns, dir));
      const mid = (pick: (run: LoopRun) => number) => median(runs.map(pick));
      byTurns.push({
        turns,
        msPerTurn: mid((r) => r.msPerTurn),
        loopMsPerTurn: mid((r) => r.loopMsPerTurn),
        clientMsPerTurn: mid((r) => r.clientMsPerTurn),
        clientCpuMsPerTurn: mid((r) => r.clientCpuMsPerTurn),
        serverCpuMsPerTurn: mid((r) => r.serverCpuMsPerTurn),
        serverHandlingMsPerTurn: mid((r) => r.serverHandlingMsPerTurn),
        gcMsPerTurn: mid((r) => r.gcMsPerTurn),
        gcInWaitsMsPerTurn: mid((r) => r.gcInWaitsMsPerTurn),
        firstTenthMsPerTurn: mid((r) => r.firstTenthMsPerTurn),
        lastTenthMsPerTurn: mid((r) => r.lastTenthMsPerTurn),
        runs,
      });
    }
    const first = byTurns[0]!;
    const last = byTurns.at(-1)!;
    return { byTurns, growth: last.msPerTurn / first.msPerTurn };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
