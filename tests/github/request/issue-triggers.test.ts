import { describe, expect, it } from 'vitest';
import {
  dispatchTrigger,
  readTrigger,
  type DispatchRequest,
} from '../../../src/github/request/issue-triggers.js';
import {
  issueCommentEvent,
  issuesEvent,
  workflowDispatchEvent,
} from '../../support/github/webhook-events.js';

const options = { prefix: '/agent', label: 'todo-agent', assignee: 'todo-agent-bot' };

describe('readTrigger: labels and assignments', () => {
  it('runs the issue’s title and body as the task when the label input’s label is added', () => {
    const trigger = readTrigger(
      'issues',
      issuesEvent({
        action: 'labeled',
        label: 'TODO-agent',
        title: 'Add hints',
        body: 'to hello.py<!-- hidden -->',
      }),
      options,
    );
    expect(trigger).toMatchObject({
      kind: 'run',
      request: { kind: 'task', task: 'Add hints\n\nto hello.py' },
      origin: { kind: 'label' },
      sender: 'maintainer',
      issueNumber: 1,
    });
  });

  it('ignores other labels, an empty label input, and bots', () => {
    expect(readTrigger('issues', issuesEvent({ action: 'labeled', label: 'bug' }), options)).toMatchObject({
      kind: 'skip',
      reason: "label 'bug' is not 'todo-agent'",
    });
    expect(
      readTrigger('issues', issuesEvent({ action: 'labeled' }), { ...options, label: '' }),
    ).toMatchObject({ kind: 'skip', reason: 'an issue was labeled, and the label input is empty' });
    expect(
      readTrigger(
        'issues',
        issuesEvent({ action: 'labeled', sender: 'renovate[bot]', senderType: 'Bot' }),
        options,
      ),
    ).toMatchObject({ kind: 'skip', reason: 'labeled by bot renovate[bot], ignored' });
  });

  it('runs on an assignment to the assignee input’s login only', () => {
    expect(
      readTrigger('issues', issuesEvent({ action: 'assigned', assignee: 'todo-agent-bot' }), options),
    ).toMatchObject({ kind: 'run', origin: { kind: 'assignment' } });
    expect(
      readTrigger('issues', issuesEvent({ action: 'assigned', assignee: 'someone' }), options),
    ).toMatchObject({ kind: 'skip' });
    expect(readTrigger('issues', issuesEvent({ action: 'opened' }), options)).toMatchObject({
      kind: 'skip',
      reason: 'issue opened, ignored (labeled and assigned can ask for a run)',
    });
  });

  it('names a malformed payload’s problem instead of running', () => {
    expect(readTrigger('issues', { action: 'labeled' }, options)).toMatchObject({
      kind: 'skip',
      reason: expect.stringMatching(/^malformed issues payload: issue/),
    });
  });

  it('still reads comments as before', () => {
    expect(readTrigger('issue_comment', issueCommentEvent({ body: '/agent plan x' }), options)).toMatchObject(
      { kind: 'run', request: { kind: 'plan', task: 'x' } },
    );
    expect(readTrigger('push', {}, options)).toMatchObject({
      kind: 'skip',
      reason: expect.stringContaining('workflow_dispatch'),
    });
  });
});

const issue = {
  issueNumber: 4,
  isPullRequest: false,
  issueTitle: 'Tidy up',
  issueBody: 'body',
  issueAuthor: 'someone',
  issueAuthorAssociation: 'NONE',
  issueState: 'open',
  locked: false,
  htmlUrl: 'https://github.com/octo-org/hello-world/issues/4',
};

describe('workflow_dispatch', () => {
  it('asks for the named issue, from a bot too, and reads the task as a comment’s', () => {
    const request = readTrigger(
      'workflow_dispatch',
      workflowDispatchEvent({ issue: '#4', task: 'plan the release' }, 'github-actions[bot]', 'Bot'),
      options,
    ) as DispatchRequest;
    expect(request).toMatchObject({
      kind: 'dispatch',
      issueNumber: 4,
      task: 'plan the release',
      sender: 'github-actions[bot]',
    });
    expect(dispatchTrigger(request, issue)).toMatchObject({
      kind: 'run',
      request: { kind: 'plan', task: 'the release' },
      origin: { kind: 'dispatch' },
      issueNumber: 4,
      issueTitle: 'Tidy up',
    });
    expect(dispatchTrigger({ ...request, task: '  ' }, issue)).toMatchObject({ kind: 'usage' });
  });

  it('says which input is wrong', () => {
    expect(readTrigger('workflow_dispatch', workflowDispatchEvent({ task: 'x' }), options)).toMatchObject({
      kind: 'skip',
      reason: "workflow_dispatch needs the input issue, an issue or pull request number, got ''",
    });
  });
});
