import { describe, expect, it } from 'vitest';
import {
  delivers,
  deliversAsReview,
  signsCommits,
  opensPullRequest,
  supersedesPullRequest,
  triesPushOntoFork,
  workingBranch,
  worksOnFork,
  workspaceAccess,
} from '../../../src/github/request/run-kinds.js';
import type { ForkHead, WorkPlan } from '../../../src/github/request/work-plan.js';

const common = { base: 'main', task: 'Tidy the parser' };
const fork = (
  delivery: ForkHead['delivery'],
  maintainerCanModify: boolean,
  head: Partial<ForkHead> = {},
): WorkPlan => ({
  ...common,
  kind: 'fork',
  branch: 'agent/issue-7',
  continuesBranch: false,
  fork: {
    number: 7,
    repo: 'someone/widgets',
    ref: 'fix',
    author: 'someone',
    maintainerCanModify,
    delivery,
    ...head,
  },
});
/** Every kind of plan, a fork's with each delivery and with edits allowed or not. */
const plans: Record<string, WorkPlan> = {
  fresh: { ...common, kind: 'fresh', branch: 'agent/issue-7-1', continuesBranch: false },
  resume: { ...common, kind: 'resume', branch: 'agent/issue-7-1', continuesBranch: true },
  'pull-request': { ...common, kind: 'pull-request', branch: 'feature', continuesBranch: true },
  'fork review': fork('review', false),
  'fork review, editable': fork('review', true),
  'fork pull-request': fork('pull-request', false),
  'fork pull-request, editable': fork('pull-request', true),
  plan: { ...common, kind: 'plan' },
};
const each = <T>(decide: (plan: WorkPlan) => T) =>
  Object.fromEntries(Object.entries(plans).map(([name, plan]) => [name, decide(plan)]));
/** The plans' names a rule holds for. */
const holdsFor = (decide: (plan: WorkPlan) => boolean) =>
  Object.entries(plans)
    .filter(([, plan]) => decide(plan))
    .map(([name]) => name);

describe('run kinds', () => {
  it('lets the tools write the workspace on every request but a plan', () => {
    expect(workspaceAccess({ kind: 'plan', task: 'x' })).toBe('read-only');
    for (const kind of ['task', 'go', 'continue'] as const)
      expect(workspaceAccess({ kind, task: 'x', instructions: '' })).toBe('read-write');
  });

  it('delivers every run but a plan, on its branch', () => {
    expect(holdsFor(delivers)).toEqual(Object.keys(plans).filter((name) => name !== 'plan'));
    expect(each(workingBranch)).toEqual({
      fresh: 'agent/issue-7-1',
      resume: 'agent/issue-7-1',
      'pull-request': 'feature',
      'fork review': 'agent/issue-7',
      'fork review, editable': 'agent/issue-7',
      'fork pull-request': 'agent/issue-7',
      'fork pull-request, editable': 'agent/issue-7',
      plan: undefined,
    });
  });

  it("works on a fork's head for a fork only, and tries the contributor's branch only where edits are allowed", () => {
    expect(holdsFor(worksOnFork)).toEqual([
      'fork review',
      'fork review, editable',
      'fork pull-request',
      'fork pull-request, editable',
    ]);
    expect(holdsFor(triesPushOntoFork)).toEqual(['fork review, editable', 'fork pull-request, editable']);
    // A deleted fork has no branch to push to, whatever its pull request says of edits: the model is not told
    // its change may be pushed there.
    const deleted = { repo: '(deleted fork)', deleted: true };
    expect(triesPushOntoFork(fork('review', true, deleted))).toBe(false);
    expect(triesPushOntoFork(fork('pull-request', true, deleted))).toBe(false);
  });

  it("sends a fork's work back as a review, or as a pull request that supersedes it, as its delivery says", () => {
    expect(holdsFor(deliversAsReview)).toEqual(['fork review', 'fork review, editable']);
    expect(holdsFor(supersedesPullRequest)).toEqual(['fork pull-request', 'fork pull-request, editable']);
  });

  it("opens a pull request of ours except on a pull request's own head, as a review, or for a plan", () => {
    expect(holdsFor(opensPullRequest)).toEqual([
      'fresh',
      'resume',
      'fork pull-request',
      'fork pull-request, editable',
    ]);
  });

  it('signs the commit on a branch of this repository, new or continued, never for a fork or a plan', () => {
    expect(holdsFor(signsCommits)).toEqual(['fresh', 'resume', 'pull-request']);
  });
});
