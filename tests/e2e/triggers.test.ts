// More ways to start (issue 20, point 3): a label, an assignment, and workflow_dispatch, through dist/index.js
// with payloads checked against GitHub's webhook schemas.
import { afterEach, describe, expect, it } from 'vitest';
import { validateWebhook } from '../support/github/openapi.js';
import { issuesEvent, workflowDispatchEvent } from '../support/github/webhook-events.js';
import { reply, text, toolUse, type ScriptStep } from '../support/anthropic/server.js';
import { createWorld, openingText, type World } from './setup.js';

let world: World | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

const oneItem = (): ScriptStep[] => [
  reply(toolUse('todo', { items: [{ id: '1', text: 'Look', status: 'completed' }] })),
  reply(text('Looked.')),
];

const inputs = { label: 'todo-agent', assignee: 'todo-agent-bot' };

describe('more ways to start', () => {
  it('runs the issue’s title and body when the label is added, with 👀 on the issue', async () => {
    world = await createWorld(oneItem(), {
      issue: { title: 'Add a CHANGELOG', body: 'Start one with an Unreleased section.' },
    });
    const event = issuesEvent({
      action: 'labeled',
      label: 'todo-agent',
      title: 'Add a CHANGELOG',
      body: 'Start one with an Unreleased section.',
    });
    expect(validateWebhook('issues-labeled', event)).toEqual([]);
    const run = await world.runEvent('issues', event, { inputs });
    expect(run.outputs.status).toBe('completed');
    const opening = openingText(world.model.requests[0]!);
    expect(opening).toContain('Add a CHANGELOG\n\nStart one with an Unreleased section.');
    expect(world.github.state.issues.get(1)!.reactions).toContain('eyes');
    expect(world.github.violations).toEqual([]);
  });

  it('checks the labeler’s permission as a commenter’s, and ignores other labels', async () => {
    world = await createWorld([]);
    const refused = await world.runEvent('issues', issuesEvent({ action: 'labeled', sender: 'reader' }), {
      inputs,
    });
    expect(refused.outputs.status).toBe('refused');
    expect(world.botComments().at(-1)!.body).toContain('@reader only collaborators with write access');
    const other = await world.runEvent('issues', issuesEvent({ action: 'labeled', label: 'bug' }), {
      inputs,
    });
    expect(other.outputs.status).toBe('skipped');
    expect(world.model.requests).toHaveLength(0);
  });

  it('runs on an assignment to the assignee login', async () => {
    world = await createWorld(oneItem());
    const event = issuesEvent({ action: 'assigned', assignee: 'todo-agent-bot' });
    expect(validateWebhook('issues-assigned', event)).toEqual([]);
    const run = await world.runEvent('issues', event, { inputs });
    expect(run.outputs.status).toBe('completed');
  });

  it('runs a workflow_dispatch as if its sender had commented, a bot included', async () => {
    world = await createWorld(oneItem());
    const event = workflowDispatchEvent(
      { issue: '1', task: 'look at hello.py' },
      'github-actions[bot]',
      'Bot',
    );
    expect(validateWebhook('workflow-dispatch', event)).toEqual([]);
    const run = await world.runEvent('workflow_dispatch', event, { inputs });
    expect(run.outputs.status).toBe('completed');
    expect(openingText(world.model.requests[0]!)).toContain('look at hello.py');
    expect(world.github.violations).toEqual([]);
  });
});
