// Runs (src/github/api/runs.ts) against the GitHub emulator: the workflow runs not finished yet.
import { describe, expect, it } from 'vitest';
import { useApiPerTest } from '../../support/github/per-test.js';

const apiFor = useApiPerTest();

describe('unfinishedRuns', () => {
  it('lists every unfinished run, past the first page of 100, and none that completed', async () => {
    const { api, emu } = await apiFor();
    for (let id = 1; id <= 130; id++) emu.addWorkflowRun({ id, status: id % 10 ? 'queued' : 'in_progress' });
    emu.addWorkflowRun({ id: 131, status: 'completed', conclusion: 'success' });
    const runs = await api.runs.unfinishedRuns();
    expect(runs.map((run) => run.id).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 130 }, (_, i) => i + 1),
    );
    expect(emu.calls.filter((call) => call.query.status === 'queued')).toHaveLength(2);
    expect(emu.violations).toEqual([]);
  });
});

describe('one run', () => {
  it("reads a run's status, and a run GitHub does not know is gone", async () => {
    const { api, emu } = await apiFor();
    emu.addWorkflowRun({ id: 7, status: 'queued' });
    expect(await api.runs.runStatus(7)).toBe('queued');
    expect(await api.runs.runStatus(8)).toBe('gone');
    expect(emu.violations).toEqual([]);
  });

  it('cancels a run, and tells a finished run, a token without actions: write and an unknown run apart', async () => {
    const { api, emu } = await apiFor();
    let stopped = 0;
    emu.addWorkflowRun({ id: 7, onCancel: () => stopped++ });
    emu.addWorkflowRun({ id: 8, status: 'completed', conclusion: 'success' });
    expect(await api.runs.cancelRun(7)).toBe('cancelling');
    expect(stopped).toBe(1);
    expect(await api.runs.runStatus(7)).toBe('completed');
    expect(await api.runs.cancelRun(8)).toBe('finished');
    expect(await api.runs.cancelRun(9)).toBe('unknown');
    const readOnly = await apiFor({ actionsWrite: false });
    readOnly.emu.addWorkflowRun({ id: 7 });
    expect(await readOnly.api.runs.cancelRun(7)).toBe('forbidden');
    expect(await readOnly.api.runs.runStatus(7)).toBe('in_progress');
  });

  it('names each run as the queue reads it: its title, workflow and when its attempt started', async () => {
    const { api, emu } = await apiFor();
    emu.addWorkflowRun({ id: 3, title: 'todo-agent #12', createdAt: '2026-01-02T03:04:05Z' });
    const [run, ...more] = await api.runs.unfinishedRuns();
    expect(more).toEqual([]);
    expect(run).toMatchObject({
      id: 3,
      title: 'todo-agent #12',
      status: 'in_progress',
      startedAt: '2026-01-02T03:04:05Z',
    });
    expect(run!.workflowId).toBeGreaterThan(0);
    expect(run!.htmlUrl).toMatch(/\/actions\/runs\/3$/);
  });
});
