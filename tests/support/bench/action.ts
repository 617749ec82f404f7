// Bench measures 1 and 3: the bundled action (dist/index.js) run as a runner runs it, against the
// GitHub emulator and a zero-latency scripted model.
import { createWorld, type World } from '../../e2e/setup.js';
import type { ScriptStep } from '../anthropic/server.js';
import { workScript } from './scripts.js';
import { maxInWindow, median, minGap } from './stats.js';
import type { RecordedCall } from '../github/emulator.js';
import { HELLO_TASK, helloScript } from '../anthropic/scenarios.js';

const isWrite = (call: RecordedCall) => call.method !== 'GET' && call.method !== 'HEAD';
/** Creating or editing the checklist comment (the bot's only comment on a run that is allowed). */
const isCommentWrite = (call: RecordedCall) =>
  (call.method === 'POST' && /\/issues\/\d+\/comments$/.test(call.path)) ||
  (call.method === 'PATCH' && /\/issues\/comments\/\d+$/.test(call.path));

/**
 * One triggered run that must complete cleanly; anything else makes its numbers meaningless. The world is
 * the caller's to close. `spawnedAt` and `exitedAt` are the process's start and exit.
 */
export async function completedRun(
  script: ScriptStep[],
  task: string,
  {
    inputs = {},
    latencyMs = 0,
    githubLatencyMs = 0,
    as,
    node,
    entry,
  }: {
    inputs?: Record<string, string>;
    latencyMs?: number;
    githubLatencyMs?: number;
    /** Run as this user (the hosted runner's `runner`), on this node. */
    as?: { uid: number; gid: number };
    node?: string;
    /** Another build of the action's entry (an earlier commit's dist/index.js), to compare. */
    entry?: string;
  } = {},
): Promise<{ world: World; spawnedAt: number; exitedAt: number; stdout: string }> {
  const world = await createWorld(script, { latencyMs, githubLatencyMs });
  try {
    let spawnedAt = NaN;
    let exitedAt = NaN;
    const run = await world.trigger(`/agent ${task}`, {
      inputs,
      ...(as ? { as } : {}),
      ...(node ? { node } : {}),
      ...(entry ? { entry } : {}),
      onSpawn: (child) => {
        spawnedAt = Date.now();
        child.on('exit', () => (exitedAt = Date.now()));
      },
    });
    const problems = [
      ...(run.code === 0 ? [] : [`exit code ${run.code}`]),
      ...(run.outputs.status === 'completed' ? [] : [`status ${run.outputs.status}`]),
      ...world.github.violations,
      ...world.model.violations.map((v) => v.message),
    ];
    if (problems.length > 0)
      throw new Error(
        `bench: the action run went wrong: ${problems.join('; ')}\n${run.stderr.slice(0, 2000)}`,
      );
    return { world, spawnedAt, exitedAt, stdout: run.stdout };
  } catch (error) {
    await world.close();
    throw error;
  }
}

export interface FirstWriteRun {
  /** Spawn to the first request that is not a GET: the 👀 reaction in today's action. */
  firstWriteMs: number;
  firstWrite: string;
  /** Spawn to the first request of any kind. */
  firstRequestMs: number;
  /** Spawn to the creation of the checklist comment. */
  checklistMs: number;
}

export interface FirstWrite {
  medianMs: number;
  medianChecklistMs: number;
  runs: FirstWriteRun[];
}

/** Measure 1: process start to the first GitHub write, over `reps` runs of the seeds' sample task. */
export async function measureFirstWrite(reps: number): Promise<FirstWrite> {
  const runs: FirstWriteRun[] = [];
  for (let rep = 0; rep < reps; rep++) {
    const { world, spawnedAt } = await completedRun(helloScript(), HELLO_TASK);
    try {
      const calls = world.github.calls;
      const first = calls.find(isWrite);
      const checklist = calls.find(isCommentWrite);
      if (!first || !checklist || calls.length === 0)
        throw new Error('bench: the action made no GitHub write');
      runs.push({
        firstWriteMs: first.at - spawnedAt,
        firstWrite: `${first.method} ${first.operationId ?? first.path}`,
        firstRequestMs: calls[0]!.at - spawnedAt,
        checklistMs: checklist.at - spawnedAt,
      });
    } finally {
      await world.close();
    }
  }
  return {
    medianMs: median(runs.map((r) => r.firstWriteMs)),
    medianChecklistMs: median(runs.map((r) => r.checklistMs)),
    runs,
  };
}

export interface TrafficRun {
  requests: number;
  /** Conditional GETs answered 304 Not Modified: they cost no rate limit. */
  notModified: number;
  writes: number;
  /** Every write that created or edited the checklist comment. */
  commentWrites: number;
  acceptedTodoUpdates: number;
  /**
   * Comment writes besides the one that creates the comment (the sign of life) and the last one (the
   * outcome), which every run makes whatever its list does, per accepted todo update.
   */
  writesPerUpdate: number;
  /** All comment writes per accepted todo update. */
  allWritesPerUpdate: number;
  /** The most writes of any kind within one 10-second window. */
  maxWritesIn10s: number;
  /** The most writes of any kind within one second (the pacer lets 5 through). */
  maxWritesIn1s: number;
  /** The most writes of any kind within one minute (GitHub's limit: 80). */
  maxWritesIn60s: number;
  /** The shortest time between two consecutive writes of any kind. */
  minWriteGapMs: number | undefined;
  durationMs: number;
  byOperation: Record<string, number>;
}

export interface Traffic {
  items: number;
  turns: number;
  modelLatencyMs: number;
  medianRequests: number;
  medianWritesPerUpdate: number;
  medianAllWritesPerUpdate: number;
  medianMaxWritesIn10s: number;
  /** The shortest gap between two writes in any run: GitHub asks for at least 1 s. */
  shortestWriteGapMs: number | undefined;
  runs: TrafficRun[];
}

function minOf(values: (number | undefined)[]): number | undefined {
  const known = values.filter((v): v is number => v !== undefined);
  return known.length > 0 ? Math.min(...known) : undefined;
}

/** `todo` calls the model made that the loop accepted: tool_results for a todo tool_use without is_error. */
export function acceptedTodoUpdates(bodies: readonly unknown[]): number {
  const todoIds = new Set<string>();
  const accepted = new Set<string>();
  for (const body of bodies) {
    const messages = (body as { messages?: { content?: unknown }[] }).messages ?? [];
    for (const message of messages) {
      if (!Array.isArray(message.content)) continue;
      for (const block of message.content as Record<string, unknown>[]) {
        if (block.type === 'tool_use' && block.name === 'todo') todoIds.add(String(block.id));
        if (block.type === 'tool_result' && todoIds.has(String(block.tool_use_id)) && !block.is_error)
          accepted.add(String(block.tool_use_id));
      }
    }
  }
  return accepted.size;
}

/**
 * Measure 3: GitHub traffic for an `items`-item, `turns`-turn session, over `reps` runs. With a zero-latency
 * model the whole loop fits inside the comment writer's 1 s interval; `modelLatencyMs` paces it like a model.
 */
export async function measureTraffic(
  reps: number,
  { items = 10, turns = 40, modelLatencyMs = 0 } = {},
): Promise<Traffic> {
  const runs: TrafficRun[] = [];
  for (let rep = 0; rep < reps; rep++) {
    const { world, spawnedAt } = await completedRun(
      workScript({ items, turns }),
      `work through a ${items}-part plan`,
      { inputs: { max_turns: String(turns + 5) }, latencyMs: modelLatencyMs },
    );
    try {
      const { calls } = world.github;
      const writes = calls.filter(isWrite);
      const commentWrites = calls.filter(isCommentWrite).length;
      const accepted = acceptedTodoUpdates(world.model.requests.map((r) => r.body));
      const byOperation: Record<string, number> = {};
      for (const call of calls) {
        const name = call.operationId ?? `${call.method} ${call.path}`;
        byOperation[name] = (byOperation[name] ?? 0) + 1;
      }
      runs.push({
        requests: calls.length,
        notModified: calls.filter((call) => call.status === 304).length,
        writes: writes.length,
        commentWrites,
        acceptedTodoUpdates: accepted,
        writesPerUpdate: Math.max(0, commentWrites - 2) / accepted,
        allWritesPerUpdate: commentWrites / accepted,
        maxWritesIn10s: maxInWindow(
          writes.map((w) => w.at),
          10_000,
        ),
        maxWritesIn1s: maxInWindow(
          writes.map((w) => w.at),
          1_000,
        ),
        maxWritesIn60s: maxInWindow(
          writes.map((w) => w.at),
          60_000,
        ),
        minWriteGapMs: minGap(writes.map((w) => w.at)),
        durationMs: (calls.at(-1)?.at ?? spawnedAt) - spawnedAt,
        byOperation,
      });
    } finally {
      await world.close();
    }
  }
  return {
    items,
    turns,
    modelLatencyMs,
    medianRequests: median(runs.map((r) => r.requests)),
    medianWritesPerUpdate: median(runs.map((r) => r.writesPerUpdate)),
    medianAllWritesPerUpdate: median(runs.map((r) => r.allWritesPerUpdate)),
    medianMaxWritesIn10s: median(runs.map((r) => r.maxWritesIn10s)),
    shortestWriteGapMs: minOf(runs.map((r) => r.minWriteGapMs)),
    runs,
  };
}
