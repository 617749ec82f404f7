// Bench measure 14 (issue 37): the start (spawn → first model request) and the end (last model answer → exit)
// of the bundled action as GitHub's hosted runner starts it: the non-root `runner` user with passwordless sudo,
// on Node 24, default inputs (allowlist on, sandbox on), GitHub answering at once; and as root on the same
// Node 24 in the same run, so the two users cannot drift apart, with root on this machine's node as a
// reference. On Node 24 each user also runs with two installed local MCP servers. The kinds are interleaved
// rep by rep, so the machine's load falls on all alike; the action's own trace of its start
// (src/runner/trace.ts, its debug lines) gives where the time went. `compareEntries` runs earlier builds'
// dist/index.js against each other the same way, to find the commit a step came with.
import { existsSync, realpathSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { completedRun } from './action.js';
import { HELLO_TASK, helloScript } from '../anthropic/scenarios.js';
import { ROOT } from '../action-harness.js';
import { RUNNER_USER } from '../../e2e/setup.js';
import { parseTrace, type TraceStep } from '../../../src/runner/trace.js';
import { median } from './stats.js';

/** Where .ci/lib.sh puts Node 24 for the runner user's runs. */
export const NODE24 = '/opt/node24/package/bin/node';

/** Who runs the action, on which node (the hosted runner's way, root on the same Node, root on this one's). */
export interface Runner {
  who: 'root' | 'runner';
  node: string;
}

export interface StartRun extends Runner {
  mcp: boolean;
  /** The build run: an earlier commit's `dist/index.js` when comparing (`--entry`), else this one's. */
  entry?: string;
  /** The machine's load average over the last minute as the run ended. */
  load: number;
  firstModelMs: number;
  lastAnswerToExitMs: number;
  trace: TraceStep[];
}

export interface StartKind extends Runner {
  mcp: boolean;
  firstModelMs: number;
  lastAnswerToExitMs: number;
  /** The trace of the run whose start was the median's (the middle run by firstModelMs). */
  trace: TraceStep[];
}

export interface StartCost {
  kinds: StartKind[];
  /** Per user on Node 24: the median of the paired differences (with two servers − without), run in turns. */
  mcpAddedMs: Array<Runner & { ms: number }>;
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

async function oneRun({ who, node }: Runner, mcp: boolean, entry?: string): Promise<StartRun> {
  const { world, spawnedAt, exitedAt, stdout } = await completedRun(helloScript(), HELLO_TASK, {
    node,
    ...(who === 'runner' ? { as: RUNNER_USER } : {}),
    ...(entry ? { entry } : {}),
    ...(mcp ? { inputs: { mcp_servers: twoServers(node), mcp_timeout: '60' } } : {}),
  });
  try {
    const first = world.model.requests[0]!.receivedAt;
    const last = world.model.requests.at(-1)!.receivedAt;
    return {
      who,
      node,
      mcp,
      ...(entry ? { entry } : {}),
      firstModelMs: first - spawnedAt,
      lastAnswerToExitMs: exitedAt - last,
      load: loadavg()[0]!,
      trace: parseTrace(stdout),
    };
  } finally {
    await world.close();
  }
}

const same = (a: Runner, b: Runner) => a.who === b.who && a.node === b.node;

/**
 * Who the bench can run the action as: the runner user on Node 24 (as GitHub runs it), root on Node 24 (the
 * same Node, so the two users compare), and root on this machine's node as a reference row. `skipped` says
 * which of them cannot run here.
 */
export function runners(): { runners: Runner[]; skipped?: string } {
  const here: Runner = { who: 'root', node: process.execPath };
  if (!existsSync(NODE24))
    return { runners: [here], skipped: `no Node 24 at ${NODE24} (.ci/lib.sh puts it there)` };
  const onNode24: Runner[] = [{ who: 'root', node: NODE24 }];
  const reference = realpathSync(process.execPath) === realpathSync(NODE24) ? [] : [here];
  if (process.getuid?.() !== 0)
    return {
      runners: [...onNode24, ...reference],
      skipped: 'the bench is not root: it cannot start the action as `runner`',
    };
  return { runners: [{ who: 'runner', node: NODE24 }, ...onNode24, ...reference] };
}

/**
 * Measure 14 over `reps` rounds of every kind: each of `runners()` without MCP servers, and those on Node 24
 * with two local servers too. The kinds take turns within a round, so the machine's load falls on all alike.
 */
export async function measureStart(reps: number, { mcp = true } = {}): Promise<StartCost> {
  const { runners: users, skipped } = runners();
  const withServers = (user: Runner) => mcp && user.node === NODE24;
  const kinds: Array<Runner & { mcp: boolean }> = users.flatMap((user) => [
    { ...user, mcp: false },
    ...(withServers(user) ? [{ ...user, mcp: true }] : []),
  ]);
  const runs: StartRun[] = [];
  for (let rep = 0; rep < reps; rep++) for (const kind of kinds) runs.push(await oneRun(kind, kind.mcp));
  const mine = (kind: Runner & { mcp: boolean }) =>
    runs.filter((run) => same(run, kind) && run.mcp === kind.mcp);
  return {
    kinds: kinds.map((kind): StartKind => {
      const byStart = [...mine(kind)].sort((a, b) => a.firstModelMs - b.firstModelMs);
      return {
        ...kind,
        firstModelMs: median(byStart.map((run) => run.firstModelMs)),
        lastAnswerToExitMs: median(byStart.map((run) => run.lastAnswerToExitMs)),
        trace: byStart[Math.floor((byStart.length - 1) / 2)]!.trace,
      };
    }),
    mcpAddedMs: users.filter(withServers).map((user) => {
      const plain = mine({ ...user, mcp: false });
      const servers = mine({ ...user, mcp: true });
      return { ...user, ms: median(plain.map((run, k) => servers[k]!.firstModelMs - run.firstModelMs)) };
    }),
    runs,
    ...(skipped ? { skipped } : {}),
  };
}

export interface EntryCost {
  entry: string;
  firstModelMs: number;
  lastAnswerToExitMs: number;
  /** The median of the paired differences from the entry before's run of the same round (0 for the first). */
  startAddedMs: number;
  endAddedMs: number;
}

export interface EntryComparison extends Runner {
  reps: number;
  entries: EntryCost[];
  runs: StartRun[];
}

/**
 * Builds compared (`--entry`): each `dist/index.js` run as the hosted runner runs it (the runner user on
 * Node 24; root when the bench is not root) or as `user` says, every build once a round, the order turned by
 * one each round so none always runs first. Each build's figure against the build before it (give them oldest
 * first, to find a step) is the median of the paired differences, round by round.
 */
export async function compareEntries(
  entries: readonly string[],
  reps: number,
  user: Runner = runners().runners[0]!,
): Promise<EntryComparison> {
  const runs: StartRun[] = [];
  const rounds: StartRun[][] = [];
  for (let rep = 0; rep < reps; rep++) {
    const round: StartRun[] = [];
    for (let k = 0; k < entries.length; k++) {
      const entry = entries[(k + rep) % entries.length]!;
      const run = await oneRun(user, false, entry);
      process.stderr.write(
        `  round ${rep + 1}, ${entry}: start ${run.firstModelMs} ms, end ${run.lastAnswerToExitMs} ms, ` +
          `load ${run.load.toFixed(1)}\n`,
      );
      round[(k + rep) % entries.length] = run;
      runs.push(run);
    }
    rounds.push(round);
  }
  return {
    ...user,
    reps,
    runs,
    entries: entries.map((entry, k) => ({
      entry,
      firstModelMs: median(rounds.map((round) => round[k]!.firstModelMs)),
      lastAnswerToExitMs: median(rounds.map((round) => round[k]!.lastAnswerToExitMs)),
      startAddedMs: median(
        rounds.map((round) => round[k]!.firstModelMs - round[Math.max(0, k - 1)]!.firstModelMs),
      ),
      endAddedMs: median(
        rounds.map((round) => round[k]!.lastAnswerToExitMs - round[Math.max(0, k - 1)]!.lastAnswerToExitMs),
      ),
    })),
  };
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
