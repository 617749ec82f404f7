// A request's turn on its thread (src/action/wait-turn.ts) against the GitHub emulator: what it says on the
// thread while it waits, when it goes at once, and that a queue it cannot read never holds a run back. The
// waiting itself (polling the runs ahead) is run-queue's, tested in tests/github/run-queue.test.ts.
import { describe, expect, it } from 'vitest';
import { lookAhead, waitingText, waitTurn } from '../../src/action/wait-turn.js';
import type { WorkflowRunInfo } from '../../src/github/api/runs.js';
import { readSettings } from '../../src/settings/settings.js';
import { useApiPerTest } from '../support/github/per-test.js';
import type { GitHubEmulator } from '../support/github/types.js';
import { usePrinted } from '../support/printed.js';
import { commentTrigger, RUNNER_ENV } from '../support/runner-env.js';

const apiFor = useApiPerTest();

const settingsFor = (runId: string) =>
  readSettings({
    ...RUNNER_ENV,
    GITHUB_RUN_ID: runId,
    INPUT_GITHUB_TOKEN: 'ghs_waitTurnTest',
    INPUT_ANTHROPIC_API_KEY: 'sk-ant-wait-turn-test',
  });

const trigger = commentTrigger();

/** This run (20) and two runs of the same thread started before it, and one of another thread. */
function queue(emu: GitHubEmulator): void {
  emu.addWorkflowRun({ id: 11, createdAt: '2026-01-01T00:00:02Z' });
  emu.addWorkflowRun({ id: 10, status: 'queued', createdAt: '2026-01-01T00:00:01Z' });
  emu.addWorkflowRun({ id: 12, title: 'todo-agent #2', createdAt: '2026-01-01T00:00:00Z' });
  emu.addWorkflowRun({ id: 20, createdAt: '2026-01-01T00:00:03Z' });
}

const bodies = (emu: GitHubEmulator): string[] => [...emu.state.comments.values()].map((c) => c.body);

/** What the action writes to the runner's log. */
const log = usePrinted();

describe('waitingText', () => {
  const run = (id: number): WorkflowRunInfo => ({
    id,
    workflowId: 1,
    title: 'todo-agent #1',
    status: 'queued',
    startedAt: '2026-01-01T00:00:00Z',
    htmlUrl: `https://github.example/runs/${id}`,
  });

  it('links the one run ahead, in the singular', () => {
    expect(waitingText([run(10)], 'issue')).toBe(
      '⏳ todo-agent will start on this request once [run 10](https://github.example/runs/10) on this issue finishes (1 request ahead).',
    );
  });

  it('links every run ahead in order, in the plural', () => {
    expect(waitingText([run(10), run(11)], 'pull request')).toContain(
      '[run 10](https://github.example/runs/10), [run 11](https://github.example/runs/11) on this pull request finish (2 requests ahead)',
    );
  });
});

describe('waitTurn', () => {
  it('goes at once, asking nothing, when this is not a workflow run', async () => {
    const { api, emu } = await apiFor();
    const settings = settingsFor('local');
    expect(lookAhead(api, settings)).toBeUndefined();
    const signal = new AbortController().signal;
    expect(await waitTurn({ api, trigger, settings, signal })).toBe('go');
    expect(emu.calls).toEqual([]);
  });

  it('goes at once, saying nothing on the thread, when no run of this thread is ahead', async () => {
    const { api, emu } = await apiFor();
    emu.addWorkflowRun({ id: 12, title: 'todo-agent #2', createdAt: '2026-01-01T00:00:00Z' });
    emu.addWorkflowRun({ id: 20, createdAt: '2026-01-01T00:00:03Z' });
    const settings = settingsFor('20');
    const signal = new AbortController().signal;
    expect(await waitTurn({ api, trigger, settings, signal, queue: lookAhead(api, settings) })).toBe('go');
    expect(bodies(emu)).toEqual([]);
    expect(emu.violations).toEqual([]);
  });

  it('says which runs it waits for, oldest first, and that it did not run when it was cancelled', async () => {
    const { api, emu } = await apiFor();
    queue(emu);
    const settings = settingsFor('20');
    const queueLook = lookAhead(api, settings);
    const stop = new AbortController();
    stop.abort();
    const result = await waitTurn({ api, trigger, settings, signal: stop.signal, queue: queueLook });
    expect(result).toBe('cancelled');
    const [waiting, cancelled, ...more] = bodies(emu);
    expect(more).toEqual([]);
    expect(waiting).toMatch(
      /^⏳ todo-agent will start on this request once \[run 10\]\(.*\/actions\/runs\/10\), \[run 11\]/,
    );
    expect(waiting).toContain('on this issue finish (2 requests ahead)');
    expect(waiting).not.toContain('run 12');
    expect(cancelled).toBe('⏹ This request was cancelled while it waited its turn, so it did not run.');
    expect(log()).toContain('todo-agent will start on this request once');
    // The look sent beside the gate is the one used: the queued runs are listed once.
    expect(emu.calls.filter((call) => call.query.status === 'queued')).toHaveLength(1);
    expect(emu.violations).toEqual([]);
  });

  it('goes at once, with a warning that names the missing permission, when the runs may not be read', async () => {
    const { api, emu } = await apiFor();
    queue(emu);
    emu.failNext(
      { method: 'GET', path: /\/actions\/runs$/ },
      { status: 403, body: { message: 'Resource not accessible by integration', status: '403' } },
    );
    const signal = new AbortController().signal;
    const result = await waitTurn({ api, trigger, settings: settingsFor('20'), signal });
    expect(result).toBe('go');
    expect(log()).toContain(
      '::warning::could not look for runs ahead on this issue (the token may not read workflow runs (actions: read)); the run starts at once',
    );
    expect(bodies(emu)).toEqual([]);
  });

  it('goes at once when this run is not among the unfinished runs (no queue to stand in)', async () => {
    const { api, emu } = await apiFor();
    emu.addWorkflowRun({ id: 10, createdAt: '2026-01-01T00:00:01Z' });
    const signal = new AbortController().signal;
    const result = await waitTurn({ api, trigger, settings: settingsFor('20'), signal });
    expect(result).toBe('go');
    expect(log()).toContain(
      "Not queued: run 20 is not among the repository's unfinished runs; the run starts at once.",
    );
    expect(bodies(emu)).toEqual([]);
  });
});
