import { afterEach, describe, expect, it } from 'vitest';
import { startGitHubEmulator } from './emulator.js';
import type { GitHubEmulator } from './emulator.js';
import { validateWebhook } from './openapi.js';
import {
  issueCommentEvent,
  issuesEvent,
  workflowDispatchEvent,
  pullRequestReviewCommentEvent,
  pullRequestReviewEvent,
} from './webhook-events.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- payloads read field by field
type Payload = Record<string, any>;

let emulator: GitHubEmulator | undefined;

afterEach(async () => {
  await emulator?.close();
  emulator = undefined;
});

/** The emulator with the agent's pull request #2, from which the events take their state. */
async function start(): Promise<GitHubEmulator> {
  emulator = await startGitHubEmulator({
    issues: [
      { number: 1, title: 'Tidy up hello.py', user: 'maintainer' },
      {
        number: 2,
        title: 'Tidy up',
        body: 'Closes #1',
        user: 'github-actions[bot]',
        pull_request: { head: 'todo-agent/issue-1' },
      },
    ],
  });
  return emulator;
}

const hunk = '@@ -1,2 +1,2 @@\n-def greet():\n+def welcome():';

describe('webhook payload builders', () => {
  it('builds a pull_request_review_comment payload that GitHub’s description accepts, from the emulator’s state', async () => {
    const emu = await start();
    const thread = emu.addReviewComment(2, 'maintainer', {
      path: 'hello.py',
      line: 1,
      diffHunk: hunk,
      body: 'x',
    });
    const reply = emu.addReviewComment(2, 'maintainer', {
      body: '/agent also rename the test',
      inReplyTo: thread.id,
    });
    const pull = emu.state.pulls[0]!;
    const event = pullRequestReviewCommentEvent({ comment: reply, pull }) as Payload;
    expect(validateWebhook('pull-request-review-comment-created', event)).toEqual([]);
    expect(event.action).toBe('created');
    expect(event.comment).toMatchObject({
      id: reply.id,
      body: '/agent also rename the test',
      path: 'hello.py',
      line: 1,
      diff_hunk: hunk,
      in_reply_to_id: thread.id,
      pull_request_review_id: reply.pull_request_review_id,
      commit_id: pull.head_sha,
      created_at: reply.created_at,
      user: { login: 'maintainer', type: 'User' },
      author_association: 'COLLABORATOR',
    });
    expect(event.pull_request).toMatchObject({
      number: 2,
      title: 'Tidy up',
      body: 'Closes #1',
      user: { login: 'github-actions[bot]', type: 'Bot' },
      head: { ref: 'todo-agent/issue-1', sha: pull.head_sha, repo: { full_name: 'octo-org/hello-world' } },
      base: { ref: 'main', repo: { full_name: 'octo-org/hello-world' } },
    });
    expect(event.repository).toMatchObject({
      full_name: 'octo-org/hello-world',
      owner: { login: 'octo-org' },
    });
    expect(event.sender).toMatchObject({ login: 'maintainer' });

    const first = pullRequestReviewCommentEvent({ comment: thread, pull }) as Payload;
    expect(first.comment).not.toHaveProperty('in_reply_to_id');
    expect(validateWebhook('pull-request-review-comment-created', first)).toEqual([]);
  });

  it('builds a pull_request_review payload with the state spelled as webhooks spell it', async () => {
    const emu = await start();
    const review = emu.addReview(2, 'maintainer', { body: '/agent use pathlib', state: 'CHANGES_REQUESTED' });
    const event = pullRequestReviewEvent({ review, pull: emu.state.pulls[0]! }) as Payload;
    expect(validateWebhook('pull-request-review-submitted', event)).toEqual([]);
    expect(event.action).toBe('submitted');
    expect(event.review).toMatchObject({
      id: review.id,
      body: '/agent use pathlib',
      state: 'changes_requested',
      submitted_at: review.submitted_at,
      user: { login: 'maintainer' },
      author_association: 'COLLABORATOR',
    });
    expect(event.pull_request).toMatchObject({ number: 2, head: { ref: 'todo-agent/issue-1' } });
    const empty = pullRequestReviewEvent({ review: { ...review, body: '' }, pull: { number: 2 } }) as Payload;
    expect(empty.review.body).toBeNull();
  });

  it('keeps issue_comment payloads as before, on the first example', () => {
    const event = issueCommentEvent({ body: '/agent go', issueNumber: 7 }) as Payload;
    expect(event).toMatchObject({ action: 'created', issue: { number: 7 }, comment: { body: '/agent go' } });
    expect(event.comment.user.login).toBe('maintainer');
  });
});

describe('the issues and workflow_dispatch payload builders', () => {
  it('build labeled and assigned payloads that GitHub’s description accepts', () => {
    const labeled = issuesEvent({ action: 'labeled', label: 'todo-agent', sender: 'maintainer' }) as Payload;
    expect(validateWebhook('issues-labeled', labeled)).toEqual([]);
    expect(labeled).toMatchObject({
      action: 'labeled',
      label: { name: 'todo-agent' },
      sender: { login: 'maintainer' },
    });
    const assigned = issuesEvent({ action: 'assigned', assignee: 'todo-agent-bot' }) as Payload;
    expect(validateWebhook('issues-assigned', assigned)).toEqual([]);
    expect(assigned.assignee.login).toBe('todo-agent-bot');
    expect(assigned.repository.full_name).toBe('octo-org/hello-world');
  });

  it('builds a workflow_dispatch payload with its inputs that GitHub’s description accepts', () => {
    const event = workflowDispatchEvent({ issue: '3', task: 'x' }, 'github-actions[bot]', 'Bot') as Payload;
    expect(validateWebhook('workflow-dispatch', event)).toEqual([]);
    expect(event).toMatchObject({
      inputs: { issue: '3', task: 'x' },
      sender: { login: 'github-actions[bot]', type: 'Bot' },
    });
  });
});
