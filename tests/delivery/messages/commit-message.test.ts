import { describe, expect, it } from 'vitest';
import { commitMessage, subjectOf } from '../../../src/delivery/messages/commit-message.js';
import { MAX_SUBJECT_CHARS } from '../../../src/delivery/messages/commit-message.js';

describe('commitMessage', () => {
  it('says whose it is: the task, the completed items, the maintainer and the run', () => {
    const message = commitMessage({
      task: 'Add type hints',
      items: [
        { id: '1', text: 'Read hello.py', status: 'completed' },
        { id: '2', text: 'Add hints\n  to greet()', status: 'completed' },
        { id: '3', text: 'Not done', status: 'pending' },
      ],
      requester: { login: 'octocat', id: 583231 },
      runUrl: 'https://github.com/o/r/actions/runs/7',
    });
    expect(message).toBe(
      [
        'Add type hints',
        '- Read hello.py\n- Add hints to greet()',
        'Workflow-run: https://github.com/o/r/actions/runs/7\nCo-authored-by: octocat <583231+octocat@users.noreply.github.com>',
      ].join('\n\n'),
    );
  });

  it('has no trailer for a requester it does not know', () => {
    expect(commitMessage({ task: 'x', items: [] })).toBe('x');
  });
});

describe('subjectOf', () => {
  it('cuts the task at a word to at most 72 characters', () => {
    const task =
      'Refactor the whole parser module so that every token kind has its own small function and tests';
    const subject = subjectOf(task);
    expect(subject.length).toBeLessThanOrEqual(MAX_SUBJECT_CHARS);
    expect(subject).toBe('Refactor the whole parser module so that every token kind has its own…');
  });

  it('keeps a short task whole, takes its first line, and cuts one overlong word', () => {
    expect(subjectOf('\n  Fix it  \nmore')).toBe('Fix it');
    expect(subjectOf('x'.repeat(100))).toBe(`${'x'.repeat(71)}…`);
  });
});
