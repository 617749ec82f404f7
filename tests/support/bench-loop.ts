// Bench measure 2: the agent loop's own cost per turn, driving runAgent in-process against a zero-latency
// scripted model. Overhead = wall time − time the model server spent on each request − tool run time.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { AgentEvent } from '../../src/agent/events.js';
import { runAgent } from '../../src/agent/loop.js';
import { Model, type TurnRequest } from '../../src/agent/model.js';
import { openWorkspace } from '../../src/agent/workspace.js';
import {
  startModelServer,
  type RecordedRequest,
  type ScriptStep,
  type ScriptedResponse,
} from './anthropic-server.js';
import { loopScript, SMALL_FILE } from './bench-scripts.js';
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

/** Wraps each step so the server notes when it got to the answer. */
function stamped(script: ScriptStep[], answeredAt: number[]): ScriptStep[] {
  return script.map((step) => (request, server): ScriptedResponse => {
    const response = typeof step === 'function' ? step(request, server) : step;
    answeredAt[request.index] = Date.now();
    return response;
  });
}

/**
 * The scripted server's share of each request. From its `receivedAt` to the script step: both Date.now(),
 * so their whole-millisecond rounding cancels out on average. It stamps `receivedAt` only after parsing
 * the body, so that parse is timed again here, after the run, where it cannot disturb the loop.
 */
function serverShares(requests: readonly RecordedRequest[], answeredAt: readonly number[]): number[] {
  return requests.map((request) => {
    const raw = JSON.stringify(request.body);
    const parseStart = performance.now();
    JSON.parse(raw);
    return answeredAt[request.index]! - request.receivedAt + (performance.now() - parseStart);
  });
}

export interface LoopRun {
  turns: number;
  wallMs: number;
  serverMs: number;
  toolMs: number;
  /** wall − server − tools, per turn: what the runner spends on each turn besides waiting. */
  msPerTurn: number;
  /** Of that, the time outside `Model.send` (the loop itself: history, reminders, events, tools' wrapper). */
  loopMsPerTurn: number;
  /** Of that, the time inside `Model.send` but not in the server (SDK, JSON, HTTP, SSE parsing). */
  clientMsPerTurn: number;
  /** Overhead per turn over the first and the last tenth of the turns: growth within one run. */
  firstTenthMsPerTurn: number;
  lastTenthMsPerTurn: number;
}

async function runOnce(turns: number, dir: string): Promise<LoopRun> {
  const answeredAt: number[] = [];
  const server = await startModelServer(stamped(loopScript(turns), answeredAt), { apiKey: KEY });
  try {
    const model = new TimedModel({ apiKey: KEY, baseURL: server.url, maxRetries: 0 });
    const turnStarts: number[] = [];
    const toolMsByTurn: number[] = [];
    const observer = (event: AgentEvent): void => {
      if (event.type === 'turn_start') turnStarts[event.turn - 1] = performance.now();
      if (event.type === 'tool')
        toolMsByTurn[event.turn - 1] = (toolMsByTurn[event.turn - 1] ?? 0) + event.durationMs;
    };
    const started = performance.now();
    const result = await runAgent({
      task: 'benchmark the loop',
      model,
      workspace: await openWorkspace(dir),
      maxTurns: turns + 5,
      observers: [observer],
    });
    const ended = performance.now();
    if (result.status !== 'completed' || result.turns !== turns || server.violations.length > 0)
      throw new Error(
        `bench: the loop run went wrong: ${result.status} after ${result.turns} turns (${result.reason}); ${server.violations.map((v) => v.message).join('; ')}`,
      );
    const serverMsByTurn = serverShares(server.requests, answeredAt);
    const overheadOf = (turn: number): number => {
      const end = turnStarts[turn + 1] ?? ended;
      return end - turnStarts[turn]! - serverMsByTurn[turn]! - (toolMsByTurn[turn] ?? 0);
    };
    const perTurn = Array.from({ length: turns }, (_, turn) => overheadOf(turn));
    const tenth = Math.max(1, Math.floor(turns / 10));
    const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;
    const wallMs = ended - started;
    const serverMs = serverMsByTurn.reduce((a, b) => a + b, 0);
    const toolMs = toolMsByTurn.reduce((a, b) => a + (b ?? 0), 0);
    return {
      turns,
      wallMs,
      serverMs,
      toolMs,
      msPerTurn: (wallMs - serverMs - toolMs) / turns,
      loopMsPerTurn: (wallMs - model.sendMs - toolMs) / turns,
      clientMsPerTurn: (model.sendMs - serverMs) / turns,
      firstTenthMsPerTurn: mean(perTurn.slice(0, tenth)),
      lastTenthMsPerTurn: mean(perTurn.slice(-tenth)),
    };
  } finally {
    await server.close();
  }
}

export interface LoopOverheadAt {
  turns: number;
  msPerTurn: number;
  loopMsPerTurn: number;
  clientMsPerTurn: number;
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
