// Bench measure 8 (issue 20): how long the action makes people wait for itself, around the model's work.
// The bundled action runs the seeds' sample task against the GitHub emulator answering every request after
// 0 ms and after `githubLatencyMs`, with a zero-latency model, and a bare `node` sends the same first GET and
// POST for comparison.
import { spawn } from 'node:child_process';
import { TOKEN } from '../../e2e/setup.js';
import { completedRun } from './action.js';
import { HELLO_TASK, helloScript } from '../anthropic/scenarios.js';
import type { RecordedCall } from '../github/emulator.js';
import { OWNER, REPO } from '../action-harness.js';
import { median, sequentialRoundTrips } from './stats.js';

export interface WaitsRun {
  /** Spawn to the 👀 reaction's arrival. */
  eyesMs: number;
  /** Spawn to the first model request's arrival. */
  firstModelMs: number;
  /** GitHub requests one after another between the spawn and the first model request. */
  roundTripsBeforeModel: number;
  /** The last model request's arrival (a zero-latency model answers at once) to `pulls.create`'s arrival. */
  lastAnswerToPullMs: number;
  /** The last model request's arrival to the process's exit. */
  lastAnswerToExitMs: number;
  /** GitHub requests one after another between the last model request and the exit. */
  roundTripsAfterModel: number;
  /** Every GitHub request after the model's last answer, in arrival order. */
  afterModel: string[];
}

export interface WaitsAt {
  githubLatencyMs: number;
  median: Omit<WaitsRun, 'afterModel'>;
  /** A bare `node` sending the same permission GET and 👀 POST at once: spawn to the POST's arrival. */
  bareNodeMs: number;
  runs: WaitsRun[];
  bareNodeRuns: number[];
}

const name = (call: RecordedCall) => call.operationId ?? `${call.method} ${call.path}`;

/** A fresh `node` that sends the action's first GET and POST at once and exits: the floor for the 👀. */
async function bareNode(apiUrl: string, commentId: number): Promise<{ spawnedAt: number }> {
  const code = `
    const h = { authorization: 'token ${TOKEN}', accept: 'application/vnd.github+json', 'content-type': 'application/json' };
    const base = ${JSON.stringify(`${apiUrl}/repos/${OWNER}/${REPO}`)};
    await Promise.all([
      fetch(base + '/collaborators/maintainer/permission', { headers: h }).then((r) => r.arrayBuffer()),
      fetch(base + '/issues/comments/${commentId}/reactions', { method: 'POST', headers: h, body: '{"content":"eyes"}' }).then((r) => r.arrayBuffer()),
    ]);`;
  let spawnedAt = NaN;
  await new Promise<void>((resolve, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', code], { stdio: 'ignore' });
    spawnedAt = Date.now();
    child.on('error', reject);
    child.on('exit', (status) =>
      status === 0 ? resolve() : reject(new Error(`bare node exited ${status}`)),
    );
  });
  return { spawnedAt };
}

async function oneRun(githubLatencyMs: number): Promise<{ run: WaitsRun; bareNodeMs: number }> {
  const { world, spawnedAt, exitedAt } = await completedRun(helloScript(), HELLO_TASK, { githubLatencyMs });
  try {
    const calls = [...world.github.calls];
    const find = (operationId: string) => {
      const call = calls.find((c) => c.operationId === operationId);
      if (!call) throw new Error(`bench: the run made no ${operationId}`);
      return call;
    };
    const eyes = find('reactions/create-for-issue-comment');
    const pull = find('pulls/create');
    const firstModel = world.model.requests[0]!.receivedAt;
    const lastModel = world.model.requests.at(-1)!.receivedAt;
    const run: WaitsRun = {
      eyesMs: eyes.at - spawnedAt,
      firstModelMs: firstModel - spawnedAt,
      roundTripsBeforeModel: sequentialRoundTrips(calls, spawnedAt, firstModel),
      lastAnswerToPullMs: pull.at - lastModel,
      lastAnswerToExitMs: exitedAt - lastModel,
      roundTripsAfterModel: sequentialRoundTrips(calls, lastModel, exitedAt),
      afterModel: calls.filter((c) => c.at >= lastModel).map(name),
    };
    const before = world.github.calls.length;
    const bare = await bareNode(world.github.url, Number(/comments\/(\d+)/.exec(eyes.path)?.[1]));
    const post = world.github.calls.slice(before).find((c) => c.method === 'POST');
    if (!post) throw new Error('bench: the bare node sent no POST');
    return { run, bareNodeMs: post.at - bare.spawnedAt };
  } finally {
    await world.close();
  }
}

/** Measure 8 at one GitHub latency, over `reps` runs (each with its bare-node comparison). */
export async function measureWaits(reps: number, githubLatencyMs: number): Promise<WaitsAt> {
  const runs: WaitsRun[] = [];
  const bareNodeRuns: number[] = [];
  for (let rep = 0; rep < reps; rep++) {
    const { run, bareNodeMs } = await oneRun(githubLatencyMs);
    runs.push(run);
    bareNodeRuns.push(bareNodeMs);
  }
  const of = (key: keyof Omit<WaitsRun, 'afterModel'>) => median(runs.map((r) => r[key]));
  return {
    githubLatencyMs,
    median: {
      eyesMs: of('eyesMs'),
      firstModelMs: of('firstModelMs'),
      roundTripsBeforeModel: of('roundTripsBeforeModel'),
      lastAnswerToPullMs: of('lastAnswerToPullMs'),
      lastAnswerToExitMs: of('lastAnswerToExitMs'),
      roundTripsAfterModel: of('roundTripsAfterModel'),
    },
    bareNodeMs: median(bareNodeRuns),
    runs,
    bareNodeRuns,
  };
}
