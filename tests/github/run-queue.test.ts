import { describe, expect, it } from 'vitest';
import type { WorkflowRunInfo } from '../../src/github/api/runs.js';
import { runsAhead, waitForTurn, type QueueApi } from '../../src/github/run-queue.js';

const run = (id: number, over: Partial<WorkflowRunInfo> = {}): WorkflowRunInfo => ({
  id,
  workflowId: 7,
  title: 'todo-agent #1',
  status: 'in_progress',
  startedAt: `2026-12-03T10:00:0${id % 10}Z`,
  htmlUrl: `https://github.com/o/r/actions/runs/${id}`,
  ...over,
});

describe('runsAhead', () => {
  it('holds the unfinished runs of the same workflow and thread that started before, oldest first', () => {
    const runs = [
      run(103),
      run(101),
      run(102),
      run(104, { title: 'todo-agent #2' }),
      run(100, { workflowId: 8 }),
      run(99, { status: 'completed' }),
    ];
    expect(runsAhead(runs, 103)!.map((r) => r.id)).toEqual([101, 102]);
    expect(runsAhead(runs, 101)).toEqual([]);
    expect(runsAhead(runs, 555)).toBeUndefined();
  });

  it('orders runs that started in the same second by id', () => {
    const same = { startedAt: '2026-12-03T10:00:00Z' };
    expect(runsAhead([run(11, same), run(10, same), run(12, same)], 12)!.map((r) => r.id)).toEqual([10, 11]);
  });
});

/** A queue API over a table of statuses the test changes. */
function fakeApi(runs: WorkflowRunInfo[]): QueueApi & { statuses: Map<number, string>; asked: number[] } {
  const statuses = new Map(runs.map((r) => [r.id, r.status]));
  const asked: number[] = [];
  return {
    statuses,
    asked,
    unfinishedRuns: async () => runs,
    runStatus: async (id) => {
      asked.push(id);
      return statuses.get(id) ?? 'gone';
    },
  };
}

describe('waitForTurn', () => {
  it('goes at once when nothing is ahead, without saying anything', async () => {
    const api = fakeApi([run(1)]);
    let told = false;
    const outcome = await waitForTurn({
      api,
      runId: 1,
      signal: new AbortController().signal,
      onWait: async () => void (told = true),
    });
    expect(outcome).toEqual({ turn: 'now', waitedFor: 0 });
    expect(told).toBe(false);
  });

  it('says what it waits for, then waits until every run ahead has completed', async () => {
    const api = fakeApi([run(1), run(2), run(3)]);
    let ahead: number[] = [];
    setTimeout(() => api.statuses.set(1, 'completed'), 30);
    setTimeout(() => api.statuses.delete(2), 60); // a run GitHub no longer has does not hold the queue
    const outcome = await waitForTurn({
      api,
      runId: 3,
      signal: new AbortController().signal,
      onWait: async (runs) => void (ahead = runs.map((r) => r.id)),
      pollMs: 5,
    });
    expect(ahead).toEqual([1, 2]);
    expect(outcome).toEqual({ turn: 'now', waitedFor: 2 });
    expect(api.statuses.get(1)).toBe('completed');
  });

  it('stops waiting when the run is cancelled', async () => {
    const api = fakeApi([run(1), run(2)]);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 20);
    const outcome = await waitForTurn({
      api,
      runId: 2,
      signal: controller.signal,
      onWait: async () => {},
      pollMs: 5,
    });
    expect(outcome).toEqual({ turn: 'cancelled', waitedFor: 1 });
  });

  it('says when its own run is not in the list, so the caller can go on and warn', async () => {
    const outcome = await waitForTurn({
      api: fakeApi([run(1)]),
      runId: 9,
      signal: new AbortController().signal,
      onWait: async () => {},
    });
    expect(outcome.turn).toBe('unknown');
  });
});
