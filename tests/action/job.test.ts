// The run's one verdict (stepOutcome): what the checklist's heading, the step's result, its `status` output,
// the summary and the record all say. Pure, so it is tested here case by case; tests/e2e/workflow-files.test.ts
// shows the five views agreeing through dist/.
import { describe, expect, it } from 'vitest';
import type { AgentResult } from '../../src/agent/events.js';
import { stepOutcome } from '../../src/action/job.js';
import type { Delivery } from '../../src/delivery/deliver.js';
import { workflowRule } from '../../src/delivery/messages/refusal.js';
import { outcomeOf } from '../../src/github/checklist/outcome.js';
import { renderChecklist } from '../../src/github/checklist/render.js';
import { emptyUsage } from '../../src/model/usage.js';

const result = (status: AgentResult['status']): AgentResult => ({
  status,
  reason: status === 'completed' ? 'every todo item is completed' : `it ended ${status}`,
  todos: [{ id: '1', text: 'Fix add()', status: 'completed' }],
  lastText: 'Done.',
  turns: 4,
  toolCalls: 3,
  usage: emptyUsage(),
  costUsd: 0.01,
});

const WORKFLOW = '.github/workflows/ci.yml';
const workflowPatch: Delivery = {
  pushedBranch: 'agent/issue-1',
  pr: { number: 7, url: 'https://github.example/o/r/pull/7', reused: false },
  workflowPatch: {
    paths: [WORKFLOW],
    refusal: workflowRule([WORKFLOW]),
    patch: '+name: ci\n',
    refused: false,
  },
};
const where = { serverUrl: 'https://github.example', owner: 'o', repo: 'r' };

describe('stepOutcome', () => {
  it('calls a pull request opened without a workflow file partial: the step passes with a warning', () => {
    const step = stepOutcome(result('completed'), workflowPatch);
    expect(step.status).toBe('partial');
    expect(step.failure).toBeUndefined();
    expect(step.warning).toContain(`without ${WORKFLOW} (their change is attached to the pull request`);
    expect(step.warning).toContain('the token may not create or change workflow files');
  });

  it('says the same in the checklist heading', () => {
    const step = stepOutcome(result('completed'), workflowPatch);
    const state = outcomeOf(result('completed'), workflowPatch, where, step.status);
    expect(state.phase).toBe('partial');
    const body = renderChecklist({
      task: 'Fix add()',
      items: [],
      turn: 4,
      usage: emptyUsage(),
      resume: { runId: '1' },
      ...state,
      phase: state.phase!,
    });
    expect(body).toMatch(/^### ⚠️ todo-agent finished, with a part left out: Fix add\\\(\\\)\n/);
    expect(body).toContain('PR #7');
  });

  it('keeps a stopped run stopped, with the warning', () => {
    const step = stepOutcome(result('incomplete'), workflowPatch);
    expect(step).toMatchObject({ status: 'incomplete' });
    expect(step.warning).toContain(WORKFLOW);
  });

  it('fails work that reached GitHub in no form, naming the rule', () => {
    const refusal = workflowRule([WORKFLOW]);
    const step = stepOutcome(result('completed'), { patch: '+x\n', refusal });
    expect(step.status).toBe('failed');
    expect(step.failure).toContain("GitHub's rule: the token may not create or change workflow files");
    // The checklist tells the refusal by its own heading, not as the agent's failure.
    const state = outcomeOf(result('completed'), { patch: '+x\n', refusal }, where, step.status);
    expect(state.phase).toBe('completed');
    expect(state.refused).toMatchObject({ rule: refusal.rule });
  });

  it('passes a delivered run as it ended, and a failed or cancelled one as such', () => {
    expect(stepOutcome(result('completed'), { pushedBranch: 'b' })).toEqual({ status: 'completed' });
    expect(stepOutcome(result('cancelled'), {})).toEqual({ status: 'cancelled' });
    expect(stepOutcome(result('failed'), {})).toEqual({
      status: 'failed',
      failure: 'todo-agent failed: it ended failed',
    });
  });
});
