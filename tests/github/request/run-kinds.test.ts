import { describe, expect, it } from 'vitest';
import {
  claimsBranch,
  delivers,
  deliversAsReview,
  workspaceAccess,
} from '../../../src/github/request/run-kinds.js';
import type { ForkHead, WorkPlan } from '../../../src/github/request/work-plan.js';

const common = { base: 'main', task: 'Tidy the parser' };
const fork = (delivery: ForkHead['delivery']): WorkPlan => ({
  ...common,
  kind: 'fork',
  branch: 'agent/issue-7',
  continuesBranch: false,
  fork: {
    number: 7,
    repo: 'someone/widgets',
    ref: 'fix',
    author: 'someone',
    maintainerCanModify: false,
    delivery,
  },
});
const plans: Record<string, WorkPlan> = {
  fresh: { ...common, kind: 'fresh', branch: 'agent/issue-7-1', continuesBranch: false },
  resume: { ...common, kind: 'resume', branch: 'agent/issue-7-1', continuesBranch: true },
  'pull-request': { ...common, kind: 'pull-request', branch: 'feature', continuesBranch: true },
  'fork review': fork('review'),
  'fork pull-request': fork('pull-request'),
  plan: { ...common, kind: 'plan' },
};
const each = (decide: (plan: WorkPlan) => boolean) =>
  Object.fromEntries(Object.entries(plans).map(([name, plan]) => [name, decide(plan)]));

describe('run kinds', () => {
  it('lets the tools write the workspace on every request but a plan', () => {
    expect(workspaceAccess({ kind: 'plan', task: 'x' })).toBe('read-only');
    for (const kind of ['task', 'go', 'continue'] as const)
      expect(workspaceAccess({ kind, task: 'x', instructions: '' })).toBe('read-write');
  });

  it('delivers every run but a plan, and a fork as a review only when its delivery says so', () => {
    expect(each(delivers)).toEqual({
      fresh: true,
      resume: true,
      'pull-request': true,
      'fork review': true,
      'fork pull-request': true,
      plan: false,
    });
    expect(each(deliversAsReview)).toEqual({
      fresh: false,
      resume: false,
      'pull-request': false,
      'fork review': true,
      'fork pull-request': false,
      plan: false,
    });
  });

  it('claims a branch early only for a new branch of this repository', () => {
    expect(each(claimsBranch)).toEqual({
      fresh: true,
      resume: false,
      'pull-request': false,
      'fork review': false,
      'fork pull-request': false,
      plan: false,
    });
  });
});
