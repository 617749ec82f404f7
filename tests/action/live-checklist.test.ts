// The run's checklist as the action opens it, on the GitHub emulator over real HTTP: at once, planning, with
// what this run knows (its task, link, sandbox and servers, the earlier list) and the state a later run
// resumes from, its task redacted and cut to what a comment can keep.
import { describe, expect, it } from 'vitest';
import { openChecklist } from '../../src/action/live-checklist.js';
import { parseAgentState } from '../../src/github/checklist/state.js';
import type { OwnPlan } from '../../src/github/request/work-plan.js';
import { readSettings } from '../../src/settings/settings.js';
import { redactor } from '../../src/text/redact.js';
import { useApiPerTest } from '../support/github/per-test.js';
import { RUNNER_ENV } from '../support/runner-env.js';

const apiFor = useApiPerTest();
const settings = readSettings({
  ...RUNNER_ENV,
  INPUT_GITHUB_TOKEN: 'ghs_liveChecklistTest',
  INPUT_ANTHROPIC_API_KEY: 'sk-ant-live-checklist-test',
});
const SECRET = 'live-checklist-secret-7';

const plan = (more: Partial<OwnPlan> = {}): OwnPlan => ({
  kind: 'resume',
  branch: 'agent/issue-1-40',
  base: 'main',
  task: 'Go on',
  continuesBranch: true,
  earlier: { task: 'Tidy up the parser', todos: [{ id: '1', text: 'Read the parser', status: 'completed' }] },
  notice: 'Continuing from the earlier list.',
  ...more,
});

describe('openChecklist', () => {
  it('writes the checklist at once: planning, under the earlier task, with the earlier list and the resume state', async () => {
    const { api, emu } = await apiFor();
    const checklist = await openChecklist(
      { settings, issueNumber: 1, api, sandbox: 'rootless', mcp: 'memory (3 tools)' },
      plan(),
    );
    await checklist.fail(new Error('stopped by the test'));
    const [comment, ...more] = [...emu.state.comments.values()];
    expect(more).toEqual([]);
    const first = comment!.versions[0]!;
    const shown = [
      '### 🤖 todo-agent is working on: Tidy up the parser',
      '_planning…_',
      'Continuing from the earlier list.',
      '- [x] Read the parser',
      'sandbox: rootless',
      'MCP: memory',
      settings.runUrl,
    ];
    expect(shown.filter((part) => !first.includes(part))).toEqual([]);
    expect(parseAgentState(first)).toMatchObject({
      task: 'Tidy up the parser',
      issue: 1,
      branch: 'agent/issue-1-40',
      base: 'main',
      runId: RUNNER_ENV.GITHUB_RUN_ID,
    });
    expect(comment!.body).toContain('stopped by the test');
    expect(checklist.url).toContain('#issuecomment-');
    expect(emu.violations).toEqual([]);
  });

  it('keeps no branch for a plan run, and stores the task redacted and cut', async () => {
    redactor.add(SECRET);
    const { api, emu } = await apiFor();
    const long = `Use ${SECRET} then ${'x'.repeat(5000)}`;
    const checklist = await openChecklist(
      { settings, issueNumber: 1, api },
      { kind: 'plan', base: 'main', task: long },
    );
    await checklist.fail(new Error('stopped'));
    const state = parseAgentState([...emu.state.comments.values()][0]!.versions[0]!)!;
    expect(state).not.toHaveProperty('branch');
    expect(String(state.task)).not.toContain(SECRET);
    expect(String(state.task).length).toBeLessThanOrEqual(4_001);
    expect(state.items).toEqual([]);
  });
});
