// `/agent cancel` against the GitHub emulator: the run the thread's newest checklist names is cancelled when it
// is still going, and every other case is answered on the thread with why nothing was cancelled.
import { describe, expect, it } from 'vitest';
import { cancelRun } from '../../src/github/cancel.js';
import { renderChecklist, type ChecklistPhase } from '../../src/github/checklist/render.js';
import type { RunTrigger } from '../../src/github/request/trigger.js';
import { emptyUsage } from '../../src/model/usage.js';
import { useApiPerTest } from '../support/github/per-test.js';
import { commentTrigger } from '../support/runner-env.js';

const apiFor = useApiPerTest();
const BOT = 'github-actions[bot]';
const trigger: RunTrigger = { kind: 'run', request: { kind: 'cancel', task: 'cancel' }, ...commentTrigger() };
const runUrl = (id: string) => `https://github.example/octo-org/hello-world/actions/runs/${id}`;

/** A checklist of run `runId` on issue 1, as the action writes it. */
const checklist = (runId: string, phase: ChecklistPhase = 'working') =>
  renderChecklist({
    task: 'Tidy up',
    items: [{ id: '1', text: 'Tidy', status: 'in_progress' }],
    phase,
    turn: 2,
    usage: emptyUsage(),
    resume: { issue: 1, runId, branch: `agent/issue-1-${runId}` },
  });

const lastComment = (emu: Awaited<ReturnType<typeof apiFor>>['emu']) =>
  [...emu.state.comments.values()].at(-1)!;

describe('cancelRun', () => {
  it('cancels the run the newest checklist names, and says so on the thread', async () => {
    const { api, emu } = await apiFor();
    let stopped = 0;
    emu.addWorkflowRun({ id: 77, onCancel: () => stopped++ });
    emu.addComment(1, BOT, checklist('77'));
    const outcome = await cancelRun(api, trigger, '90', runUrl);
    expect(outcome.status).toBe('completed');
    expect(stopped).toBe(1);
    expect(outcome.reply).toContain(runUrl('77'));
    expect(lastComment(emu)).toMatchObject({ issue_number: 1, body: outcome.reply });
    expect(emu.violations).toEqual([]);
  });

  it.each([
    ['no checklist is on the thread', () => undefined],
    ['the newest checklist has finished', () => checklist('77', 'completed')],
  ])('cancels nothing when %s', async (_why, body) => {
    const { api, emu } = await apiFor();
    let stopped = 0;
    emu.addWorkflowRun({ id: 77, onCancel: () => stopped++ });
    const shown = body();
    if (shown) emu.addComment(1, BOT, shown);
    const outcome = await cancelRun(api, trigger, '90', runUrl);
    expect(outcome).toEqual({
      status: 'skipped',
      reply: 'There is no todo-agent run going on this issue to cancel.',
    });
    expect(stopped).toBe(0);
    expect(lastComment(emu).body).toBe(outcome.reply);
  });

  it('trusts no checklist another account wrote', async () => {
    const { api, emu } = await apiFor();
    let stopped = 0;
    emu.addWorkflowRun({ id: 77, onCancel: () => stopped++ });
    emu.addComment(1, 'maintainer', checklist('77'));
    expect((await cancelRun(api, trigger, '90', runUrl)).status).toBe('skipped');
    expect(stopped).toBe(0);
  });

  it('tells a finished run, an unknown run and a token without actions: write apart', async () => {
    const finished = await apiFor();
    finished.emu.addWorkflowRun({ id: 77, status: 'completed', conclusion: 'success' });
    finished.emu.addComment(1, BOT, checklist('77'));
    expect(await cancelRun(finished.api, trigger, '90', runUrl)).toMatchObject({
      status: 'skipped',
      reply: expect.stringContaining('has already finished'),
    });

    const unknown = await apiFor();
    unknown.emu.addComment(1, BOT, checklist('78'));
    expect(await cancelRun(unknown.api, trigger, '90', runUrl)).toMatchObject({
      status: 'skipped',
      reply: expect.stringContaining('does not know'),
    });

    const readOnly = await apiFor({ actionsWrite: false });
    readOnly.emu.addWorkflowRun({ id: 77 });
    readOnly.emu.addComment(1, BOT, checklist('77'));
    const refused = await cancelRun(readOnly.api, trigger, '90', runUrl);
    expect(refused.status).toBe('failed');
    expect(refused.reply).toContain('`actions: write`');
    expect(lastComment(readOnly.emu).body).toBe(refused.reply);
  });

  it('does not cancel the run that asked, when its own checklist is the newest', async () => {
    const { api, emu } = await apiFor();
    let stopped = 0;
    emu.addWorkflowRun({ id: 90, onCancel: () => stopped++ });
    emu.addComment(1, BOT, checklist('90'));
    expect((await cancelRun(api, trigger, '90', runUrl)).status).toBe('skipped');
    expect(stopped).toBe(0);
  });
});
