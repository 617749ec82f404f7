// Issue 11, point 1: `/agent plan <task>` plans without changing anything; `/agent go` runs that plan.
import { afterEach, describe, expect, it } from 'vitest';
import { access } from 'node:fs/promises';
import { join } from 'node:path';
import { reply, text, toolUse } from '../support/anthropic/server.js';
import { expectToContainAll } from '../support/contains.js';
import { createWorld, originGit, type World } from './setup.js';

let world: World | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

const ITEMS = [
  { id: 'read', text: 'Read hello.py', activeForm: 'Reading hello.py' },
  { id: 'notes', text: 'Write NOTES.md', activeForm: 'Writing NOTES.md' },
];
const list = (...statuses: string[]) =>
  toolUse('todo', { items: ITEMS.map((item, i) => ({ ...item, status: statuses[i] })) });

const heads = (w: World) => originGit(w, 'for-each-ref', '--format=%(refname:short)', 'refs/heads');

describe('plan first', () => {
  it('posts the plan without writing or pushing, then `go` runs it with the same ids', async () => {
    world = await createWorld([
      // Run 1: explores read-only, then leaves a plan.
      reply(toolUse('read_file', { path: 'hello.py' })),
      reply(toolUse('bash', { command: 'git log --oneline' })),
      // A command that would change the workspace: the plan's sandbox mounts it read-only.
      reply(toolUse('bash', { command: 'echo draft > NOTES.md' })),
      reply(list('pending', 'pending')),
      reply(text('Plan: read hello.py, then write the notes.')),
      // Run 2 (`go`): works through the same items.
      reply(list('in_progress', 'pending')),
      reply(list('completed', 'in_progress')),
      reply(toolUse('write_file', { path: 'NOTES.md', content: 'notes\n' })),
      reply(list('completed', 'completed')),
      reply(text('Wrote NOTES.md.')),
    ]);
    const planned = await world.trigger('/agent plan write some notes', { runId: '100' });
    expect(planned.code).toBe(0);
    expect(planned.outputs.status).toBe('planned');
    expect(planned.outputs.pr_url).toBe('');
    expect(planned.outputs.branch).toBe('');
    expect(await heads(world)).toBe('main');
    await expect(access(join(world.sandbox.workspace, 'NOTES.md'))).rejects.toThrow();
    expect(world.github.state.pulls).toHaveLength(0);
    const planRequest = world.model.requests[0]!.body;
    // A plan reads GitHub too (the github tool is read-only), and may start explore helpers, but writes no file.
    expect((planRequest.tools as Array<{ name: string }>).map((tool) => tool.name)).toEqual([
      'bash',
      'read_file',
      'github',
      'todo',
      'task',
    ]);
    expect(JSON.stringify(world.model.requests[2]!.body.messages.at(-1))).toContain('Initial commit');
    expect(JSON.stringify(world.model.requests[3]!.body.messages.at(-1))).toContain('Read-only file system');

    const [planComment] = world.botComments();
    expect(planComment!.body.split('\n')[0]).toBe('### 📝 plan — comment `/agent go` to run it');
    expect(planComment!.body).toContain('write some notes');
    expect(planComment!.body).toContain('- [ ] Read hello.py\n- [ ] Write NOTES.md');
    const trigger = [...world.github.state.comments.values()].find((c) => c.body.startsWith('/agent plan'))!;
    expect(trigger.reactions).toEqual(['eyes', '+1']);

    // The maintainer rewords one item of the plan before approving it.
    world.github.editComment(
      planComment!.id,
      planComment!.body.replace('- [ ] Write NOTES.md', '- [ ] Write NOTES.md with a title'),
    );
    const go = await world.trigger('/agent go, and keep the notes short', { runId: '200' });
    expect(go.outputs.status).toBe('completed');
    expect(go.outputs.branch).toBe('agent/issue-1-200');
    expect(JSON.parse(go.outputs.todos!).map((item: { id: string }) => item.id)).toEqual(['read', 'notes']);
    const opening = JSON.stringify(world.model.requests[5]!.body.messages[0]);
    expectToContainAll(opening, [
      'write some notes',
      'New instructions from the maintainer: and keep the notes short',
      'The maintainer approved this plan',
      '[ ] #read: Read hello.py',
      '[ ] #notes: Write NOTES.md with a title',
      'reworded #notes',
    ]);
    const goComment = world.botComments()[1]!;
    expect(goComment.versions[0]).toContain('- [ ] Read hello.py\n- [ ] Write NOTES.md with a title');
    expect(goComment.body).toContain('✅ todo-agent finished');
    expect(world.github.state.pulls).toHaveLength(1);
    expect(world.github.violations).toEqual([]);
    expect(world.model.violations).toEqual([]);
  });

  it('declines `go` when the thread holds no plan, and `plan` with no task', async () => {
    world = await createWorld([reply(text('never'))]);
    const go = await world.trigger('/agent go');
    expect(go.outputs.status).toBe('skipped');
    expect(world.botComments().at(-1)!.body).toContain('there is no plan on this thread to run');
    const plan = await world.trigger('/agent plan');
    expect(plan.outputs.status).toBe('skipped');
    expect(world.botComments().at(-1)!.body).toContain('no task was given');
    expect(world.model.requests).toHaveLength(0);
  });
});
