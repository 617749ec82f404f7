// Bench measure 14 (issue 37): the start (spawn → first model request) and the end (last model answer → exit)
// of the bundled action as GitHub's hosted runner starts it: the non-root `runner` user with passwordless sudo,
// on Node 24, default inputs (allowlist on, sandbox on), GitHub answering at once; and as root, on this node,
// in the same run, so the two cannot drift apart. Each kind of run also runs with two installed local MCP
// servers. The kinds are interleaved rep by rep, so the machine's load falls on all alike; the action's own
// trace of its start (src/runner/trace.ts, its debug lines) gives where the time went.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { completedRun } from './action.js';
import { HELLO_TASK, helloScript } from '../anthropic/scenarios.js';
import { ROOT } from '../action-harness.js';
import { RUNNER_USER } from '../../e2e/setup.js';
import { parseTrace, type TraceStep } from '../../../src/runner/trace.js';
import { median } from './stats.js';

/** Where .ci/lib.sh puts Node 24 for the runner user's runs. */
export const NODE24 = '/opt/node24/package/bin/node';

export interface StartRun {
  who: 'root' | 'runner';
  mcp: boolean;
  firstModelMs: number;
  lastAnswerToExitMs: number;
  trace: TraceStep[];
}

export interface StartKind {
  who: 'root' | 'runner';
  mcp: boolean;
  node: string;
  firstModelMs: number;
  lastAnswerToExitMs: number;
  /** The trace of the run whose start was the median's (the middle run by firstModelMs). */
  trace: TraceStep[];
}

export interface StartCost {
  kinds: StartKind[];
  /** Per user: the median of the paired differences (with two servers − without), run next to each other. */
  mcpAddedMs: Array<{ who: 'root' | 'runner'; ms: number }>;
  runs: StartRun[];
  skipped?: string;
}

/** Two installed local servers (no download at start), run by `node`. */
function twoServers(node: string): string {
  const server = (pkg: string, args: string[] = []) => ({
    command: node,
    args: [join(ROOT, 'node_modules/@modelcontextprotocol', pkg, 'dist/index.js'), ...args],
  });
  return JSON.stringify({
    mcpServers: {
      everything: { ...server('server-everything', ['stdio']), tools: ['echo'] },
      memory: { ...server('server-memory'), env: { MEMORY_FILE_PATH: '/tmp/memory.jsonl' }, tools: ['*'] },
    },
  });
}

async function oneRun(who: 'root' | 'runner', mcp: boolean): Promise<StartRun> {
  const node = who === 'runner' ? NODE24 : process.execPath;
  const { world, spawnedAt, exitedAt, stdout } = await completedRun(helloScript(), HELLO_TASK, {
    ...(who === 'runner' ? { as: RUNNER_USER, node } : {}),
    ...(mcp ? { inputs: { mcp_servers: twoServers(node), mcp_timeout: '60' } } : {}),
  });
  try {
    const first = world.model.requests[0]!.receivedAt;
    const last = world.model.requests.at(-1)!.receivedAt;
    return {
      who,
      mcp,
      firstModelMs: first - spawnedAt,
      lastAnswerToExitMs: exitedAt - last,
      trace: parseTrace(stdout),
    };
  } finally {
    await world.close();
  }
}

/** Measure 14 over `reps` rounds of every kind (root and runner, each without and with two MCP servers). */
export async function measureStart(reps: number, { mcp = true } = {}): Promise<StartCost> {
  const users: Array<'root' | 'runner'> = ['root'];
  let skipped: string | undefined;
  if (process.getuid?.() !== 0) skipped = 'the bench is not root: it cannot start the action as `runner`';
  else if (!existsSync(NODE24)) skipped = `no Node 24 at ${NODE24} (.ci/lib.sh puts it there)`;
  else users.push('runner');
  const runs: StartRun[] = [];
  for (let rep = 0; rep < reps; rep++)
    for (const who of users)
      for (const withMcp of mcp ? [false, true] : [false]) runs.push(await oneRun(who, withMcp));
  const kinds = users.flatMap((who) =>
    (mcp ? [false, true] : [false]).map((withMcp): StartKind => {
      const mine = runs.filter((run) => run.who === who && run.mcp === withMcp);
      const byStart = [...mine].sort((a, b) => a.firstModelMs - b.firstModelMs);
      return {
        who,
        mcp: withMcp,
        node: who === 'runner' ? NODE24 : process.execPath,
        firstModelMs: median(mine.map((run) => run.firstModelMs)),
        lastAnswerToExitMs: median(mine.map((run) => run.lastAnswerToExitMs)),
        trace: byStart[Math.floor((byStart.length - 1) / 2)]!.trace,
      };
    }),
  );
  const mcpAddedMs = mcp
    ? users.map((who) => {
        const plain = runs.filter((run) => run.who === who && !run.mcp);
        const withServers = runs.filter((run) => run.who === who && run.mcp);
        return { who, ms: median(plain.map((run, k) => withServers[k]!.firstModelMs - run.firstModelMs)) };
      })
    : [];
  return { kinds, mcpAddedMs, runs, ...(skipped ? { skipped } : {}) };
}

/** The trace as lines: each step's start and end in ms since the process started, and how long it took. */
export function traceText(trace: readonly TraceStep[]): string {
  return trace
    .map(
      (step) =>
        `${step.startMs.toFixed(0).padStart(6)} → ${step.endMs.toFixed(0).padStart(6)} ms ` +
        `(${(step.endMs - step.startMs).toFixed(0).padStart(5)} ms)  ${step.name}`,
    )
    .join('\n');
}
