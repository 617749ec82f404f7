import { describe, expect, it } from 'vitest';
import type { AgentResult } from '../../../src/agent/events.js';
import { outcomeOf, resumeOf } from '../../../src/github/checklist/outcome.js';
import { emptyUsage } from '../../../src/model/usage.js';

const where = { serverUrl: 'https://github.example', owner: 'octo', repo: 'site' };
const result = (status: AgentResult['status'], reason = 'why'): AgentResult => ({
  status,
  reason,
  todos: [],
  lastText: '',
  turns: 2,
  toolCalls: 1,
  usage: emptyUsage(),
  costUsd: 0.5,
});

describe("the checklist's outcome", () => {
  it('names the phase, links the pushed branch and the pull request, and keeps the reason only when not completed', () => {
    const delivered = { pushedBranch: 'agent/x', pr: { number: 4, url: 'https://github.example/pull/4' } };
    expect(outcomeOf(result('completed'), delivered, where)).toMatchObject({
      phase: 'completed',
      turn: 2,
      costUsd: 0.5,
      note: undefined,
      branch: { name: 'agent/x', url: 'https://github.example/octo/site/tree/agent/x' },
      pr: { number: 4, url: 'https://github.example/pull/4' },
    });
    const stopped = outcomeOf(
      result('incomplete', 'the model stopped.'),
      { note: 'Nothing was pushed.' },
      where,
    );
    expect(stopped).toMatchObject({ phase: 'incomplete', note: 'the model stopped. Nothing was pushed.' });
    expect(stopped).not.toHaveProperty('branch');
  });

  it('attaches refused work with its patch, and only when there is a patch', () => {
    const refusal = { rule: 'a protected branch (GH006)', advice: 'Let this token bypass it.' };
    expect(outcomeOf(result('completed'), { refusal, patch: 'diff' }, where).refused).toEqual({
      ...refusal,
      patch: 'diff',
    });
    expect(outcomeOf(result('completed'), { refusal }, where)).not.toHaveProperty('refused');
  });

  it('resumes on the pushed branch, else on the one the run started on, and marks a plan', () => {
    expect(resumeOf(result('completed'), { pushedBranch: 'agent/new' }, 'agent/old')).toEqual({
      branch: 'agent/new',
    });
    expect(resumeOf(result('incomplete'), {}, 'agent/old')).toEqual({ branch: 'agent/old' });
    expect(resumeOf(result('planned'), {}, undefined)).toEqual({ planned: true });
  });
});
