import { execFileSync } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { MODEL_MODES, reply, text, toolUse } from '../support/anthropic/server.js';
import {
  changelogScript,
  HELLO_RESULT,
  HELLO_TASK,
  helloScript,
  planAt,
} from '../support/anthropic/scenarios.js';
import {
  blockData,
  changelogOnFeatureHead,
  createWorld,
  openingText,
  originGit,
  type World,
} from './setup.js';

let world: World | undefined;
const GIT_ENV = {
  GIT_AUTHOR_NAME: 'Colleague',
  GIT_AUTHOR_EMAIL: 'colleague@example.com',
  GIT_COMMITTER_NAME: 'Colleague',
  GIT_COMMITTER_EMAIL: 'colleague@example.com',
};
afterEach(async () => {
  await world?.close();
  world = undefined;
});

describe.each(MODEL_MODES)('resuming (%s)', (mode) => {
  it('finishes a run cut off by max_turns with `/agent continue`: same list, same branch, one PR', async () => {
    const script = helloScript();
    // Run 1 plays the first 5 turns (plan, read, type hints) and is stopped by max_turns.
    world = await createWorld(script.slice(0, 5), { mode });
    const first = await world.trigger(`/agent ${HELLO_TASK}`, { inputs: { max_turns: '5' }, runId: '100' });
    expect(first.outputs.status).toBe('incomplete');
    expect(first.outputs.branch).toBe('agent/issue-1-100');
    expect(world.github.state.pulls).toHaveLength(0);

    // Run 2 resumes: the model is handed the saved list and carries on from item 3.
    world.model.push(...script.slice(5));
    const second = await world.trigger('/agent continue', { runId: '200' });
    expect(second.outputs.status).toBe('completed');
    expect(second.outputs.branch).toBe('agent/issue-1-100');

    // The saved task and list are data from the earlier run; the task slot holds only `continue`'s meaning.
    const opening = openingText(world.model.requests[5]!);
    expect(opening).not.toContain(`<task>\n${HELLO_TASK}`);
    const earlier = blockData(opening, 'earlier_run') as { earlier_task: string; todo_list: unknown[] };
    expect(earlier.earlier_task).toBe(HELLO_TASK);
    expect(earlier.todo_list).toContainEqual({
      id: '1',
      text: 'Read hello.py and how it is run',
      status: 'completed',
    });
    expect(earlier.todo_list).toContainEqual({
      id: '3',
      text: 'Add docstrings to the module and `greet()`',
      status: 'in_progress',
    });

    const pulls = world.github.state.pulls;
    expect(pulls).toHaveLength(1);
    expect(pulls[0]!.head).toBe('agent/issue-1-100');
    // Each run's commit is signed, the continued branch's too (made through GitHub's API, not pushed by git).
    expect(world.github.state.apiCommits).toHaveLength(2);
    const file = await originGit(world, 'show', 'agent/issue-1-100:hello.py');
    expect(file).toBe(HELLO_RESULT.trimEnd());
    // Each run has its own comment; the second starts from the saved list.
    const comments = world.botComments();
    expect(comments).toHaveLength(2);
    expect(comments[1]!.versions[0]).toContain('- [x] Read hello.py');
    expect(comments[1]!.body).toContain('✅ todo-agent finished');
    expect(world.model.violations).toEqual([]);
    expect(world.github.violations).toEqual([]);
  });
});

describe('nothing lost across runs', () => {
  it('resumes when a personal access token wrote the saved list, as a user rather than a bot', async () => {
    const script = helloScript();
    world = await createWorld(script.slice(0, 5), { tokenUser: 'agent-machine-user' });
    const first = await world.trigger(`/agent ${HELLO_TASK}`, { inputs: { max_turns: '5' }, runId: '100' });
    expect(first.outputs.status).toBe('incomplete');
    expect(world.botComments()).toHaveLength(1);

    world.model.push(...script.slice(5));
    const second = await world.trigger('/agent continue', { runId: '200' });
    expect(second.outputs.status).toBe('completed');
    expect(second.outputs.branch).toBe('agent/issue-1-100');
    expect(openingText(world.model.requests[5]!)).toContain('"status": "in_progress"');
    // The action learnt who the token writes as, and its own checklist is not shown to the model as a comment.
    expect(world.github.calls.some((call) => call.method === 'GET' && call.path === '/user')).toBe(true);
    expect(JSON.stringify(world.model.requests[5]!.body.messages[0])).not.toContain('@agent-machine-user');
    expect(world.github.state.pulls.map((pull) => [pull.head, pull.user])).toEqual([
      ['agent/issue-1-100', 'agent-machine-user'],
    ]);
    expect(world.github.violations).toEqual([]);
  });

  it.each([
    ['the workflow token', undefined],
    ['a personal access token', 'agent-machine-user'],
  ])('ignores a saved list in a comment someone else wrote (%s)', async (_label, tokenUser) => {
    world = await createWorld(helloScript().slice(0, 5), { ...(tokenUser ? { tokenUser } : {}) });
    await world.trigger(`/agent ${HELLO_TASK}`, { inputs: { max_turns: '5' }, runId: '100' });
    // Someone copies the run's checklist, saved list and all, into a comment of their own; the original goes.
    const original = world.botComments()[0]!;
    world.github.state.comments.delete(original.id);
    world.github.addComment(1, 'writer', original.body);

    const requestsBefore = world.model.requests.length;
    const run = await world.trigger('/agent continue', { runId: '200' });
    expect(run.outputs.status).toBe('skipped');
    expect(world.botComments().at(-1)!.body).toContain('no earlier run on this issue');
    expect(world.model.requests).toHaveLength(requestsBefore);
    expect(world.github.violations).toEqual([]);
  });

  it('opens the pull request for the earlier work when the continued run has nothing left to change', async () => {
    world = await createWorld([
      reply(toolUse('todo', { items: [{ text: 'Write NOTES.md', status: 'in_progress' }] })),
      reply(toolUse('write_file', { path: 'NOTES.md', content: 'notes\n' })),
      // Second run: the file is already there; the model only marks the item done.
      reply(toolUse('todo', { items: [{ text: 'Write NOTES.md', status: 'completed' }] })),
      reply(text('NOTES.md was already written.')),
    ]);
    const first = await world.trigger('/agent write NOTES.md', { inputs: { max_turns: '2' }, runId: '1' });
    expect(first.outputs.status).toBe('incomplete');
    const second = await world.trigger('/agent continue', { runId: '2' });
    expect(second.outputs.status).toBe('completed');
    expect(world.github.state.pulls.map((p) => p.head)).toEqual(['agent/issue-1-1']);
  });

  it('declines `/agent continue` when there is nothing to continue', async () => {
    world = await createWorld([reply(text('never'))]);
    const run = await world.trigger('/agent continue');
    expect(run.outputs.status).toBe('skipped');
    expect(world.botComments()[0]!.body).toContain('no earlier run on this issue');
    expect(world.model.requests).toHaveLength(0);
  });

  it('works on a pull request’s head branch and pushes to it, without opening another PR', async () => {
    world = await createWorld(changelogScript(), { issue: { pull_request: { head: 'feature' } } });
    const run = await changelogOnFeatureHead(world);
    const { github } = world;
    // The output names the pull request the push went to; its description (a person's) is left alone.
    expect(run.outputs.pr_url).toBe(github.state.pulls[0]!.html_url);
    expect(github.state.pulls[0]!.body).toBe('hello.py could use type hints and a main guard.');
    const log = await originGit(world, 'log', '--format=%s', 'feature');
    expect(log.split('\n').slice(0, 2)).toEqual(['add a changelog', 'feature work']);
    // The commit on the pull request's head is signed, made through GitHub's API.
    expect(github.state.apiCommits).toHaveLength(1);
  });

  it('keeps the work on a fresh branch when the PR head moves on while the agent works', async () => {
    const colleague = () => {
      // A colleague pushes to the PR while the run is going (before the model's third reply).
      const dir = `${world!.sandbox.root}/colleague`;
      const env = { ...process.env, HOME: world!.sandbox.home, ...GIT_ENV };
      execFileSync('git', ['clone', '-q', '--branch', 'feature', world!.sandbox.origin, dir], { env });
      execFileSync('git', ['commit', '-q', '--allow-empty', '-m', 'colleague work'], { cwd: dir, env });
      execFileSync('git', ['push', '-q', 'origin', 'feature'], { cwd: dir, env });
    };
    world = await createWorld(
      [
        reply(planAt(3)),
        reply(toolUse('write_file', { path: 'CHANGELOG.md', content: 'Added a changelog.\n' })),
        () => {
          colleague();
          return reply(planAt(4));
        },
        reply(text('Added CHANGELOG.md.')),
      ],
      { issue: { pull_request: { head: 'feature' } } },
    );
    const { sandbox } = world;
    await sandbox.git(['switch', '-q', '-c', 'feature']);
    await sandbox.git(['push', '-q', 'origin', 'feature']);
    const result = await world.trigger('/agent add a changelog', { pullRequest: true });
    expect(result.outputs.status).toBe('completed');
    expect(result.outputs.branch).toBe('feature-2');
    const feature = await originGit(world, 'log', '-1', '--format=%s', 'feature');
    expect(feature).toBe('colleague work');
    const final = world.botComments()[0]!.body;
    expect(final).toContain('changed while the agent worked');
    expect(final).toContain('feature-2');
  });

  it('gives two independent runs on one issue their own branch, comment and pull request', async () => {
    const notes = (name: string) => [
      reply(toolUse('todo', { items: [{ text: `Write ${name}`, status: 'in_progress' }] })),
      reply(toolUse('write_file', { path: name, content: `${name}\n` })),
      reply(toolUse('todo', { items: [{ text: `Write ${name}`, status: 'completed' }] })),
      reply(text(`Wrote ${name}.`)),
    ];
    world = await createWorld([...notes('A.md'), ...notes('B.md')]);
    const first = await world.trigger('/agent write A.md', { runId: '1' });
    const second = await world.trigger('/agent write B.md', { runId: '2' });
    expect([first.outputs.status, second.outputs.status]).toEqual(['completed', 'completed']);
    expect([first.outputs.branch, second.outputs.branch]).toEqual(['agent/issue-1-1', 'agent/issue-1-2']);
    expect(world.botComments()).toHaveLength(2);
    expect(world.github.state.pulls.map((p) => p.head)).toEqual(['agent/issue-1-1', 'agent/issue-1-2']);
    // The second run started from the checked-out main, not from the first run's branch.
    const files = await originGit(world, 'ls-tree', '--name-only', 'agent/issue-1-2');
    expect(files.split('\n')).toContain('B.md');
    expect(files.split('\n')).not.toContain('A.md');
  });

  it('runs on a locked issue: only collaborators can comment there, and they still need write access', async () => {
    world = await createWorld(
      [
        reply(toolUse('todo', { items: [{ text: 'Write C.md', status: 'in_progress' }] })),
        reply(toolUse('write_file', { path: 'C.md', content: 'c\n' })),
        reply(toolUse('todo', { items: [{ text: 'Write C.md', status: 'completed' }] })),
        reply(text('Wrote C.md.')),
      ],
      { issue: { locked: true } },
    );
    const run = await world.trigger('/agent write C.md');
    expect(run.outputs.status).toBe('completed');
    expect(world.github.violations).toEqual([]);
  });

  it('continues an earlier run on the same pull request from its saved list', async () => {
    world = await createWorld(
      [
        reply(planAt(2)),
        reply(toolUse('write_file', { path: 'CHANGELOG.md', content: 'one\n' })),
        // The second run starts here, from the saved list.
        reply(planAt(4)),
        reply(text('Finished the changelog.')),
      ],
      { issue: { pull_request: { head: 'feature' } } },
    );
    const { sandbox, github } = world;
    await sandbox.git(['switch', '-q', '-c', 'feature']);
    await sandbox.git(['push', '-q', 'origin', 'feature']);
    await sandbox.git(['switch', '-q', 'main']);
    const seeded = github.state.pulls.length;
    const first = await world.trigger('/agent write the changelog', {
      pullRequest: true,
      inputs: { max_turns: '2' },
      runId: '10',
    });
    expect(first.outputs.status).toBe('incomplete');
    const second = await world.trigger('/agent continue', { pullRequest: true, runId: '11' });
    expect(second.outputs.status).toBe('completed');
    expect(second.outputs.branch).toBe('feature');
    const earlier = blockData(openingText(world.model.requests[2]!), 'earlier_run');
    expect(earlier.earlier_task).toBe('write the changelog');
    expect(earlier.todo_list).toContainEqual({
      id: '3',
      text: 'Add docstrings to the module and `greet()`',
      status: 'in_progress',
    });
    expect(github.state.pulls).toHaveLength(seeded);
    expect(world.model.violations).toEqual([]);
  });

  it('answers a trigger on a closed issue without running', async () => {
    world = await createWorld([reply(text('never'))], { issue: { state: 'closed' } });
    const run = await world.trigger('/agent fix it', { issueState: 'closed' });
    expect(run.outputs.status).toBe('skipped');
    expect(world.botComments()[0]!.body).toContain('is closed');
    expect(world.model.requests).toHaveLength(0);
  });
});
