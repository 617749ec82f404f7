// Point 5 of issue 11: draft pull requests, pr_url for a push to an open PR, files and checklist in the body.
import { afterEach, describe, expect, it } from 'vitest';
import { reply, text, toolUse } from '../support/anthropic/server.js';
import { HELLO_TASK, helloScript, planAt } from '../support/anthropic/scenarios.js';
import { createWorld, originGit, type World } from './setup.js';

let world: World | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

describe('pull request options', () => {
  it('opens a draft when `draft` is true, listing the changed files with line counts and linking the checklist', async () => {
    world = await createWorld(helloScript());
    const run = await world.trigger(`/agent ${HELLO_TASK}`, { inputs: { draft: 'true' } });
    expect(run.outputs.status).toBe('completed');
    const [pr] = world.github.state.pulls;
    expect(pr).toMatchObject({ draft: true, head: 'agent/issue-1-4242' });
    expect(run.outputs.pr_url).toBe(pr!.html_url);

    // The counts agree with git's own for the pushed branch.
    const numstat = await originGit(world, 'diff', '--numstat', `main...${pr!.head}`);
    const [added, removed, path] = numstat.split('\t');
    expect(path).toBe('hello.py');
    expect(pr!.body).toContain('### Files changed');
    expect(pr!.body).toContain(`1 file, +${added} −${removed} lines`);
    expect(pr!.body).toContain(`- \`hello.py\` +${added} −${removed}\n`);
    const checklist = world.botComments()[0]!;
    const url = `https://github.com/octo-org/hello-world/issues/1#issuecomment-${checklist.id}`;
    expect(pr!.body).toContain(`[checklist comment](${url})`);
    expect(pr!.body.startsWith('Closes #1')).toBe(true);
    expect(world.github.violations).toEqual([]);
  });

  it('opens a ready pull request by default, and names added files as added', async () => {
    world = await createWorld([
      reply(planAt(0)),
      reply(toolUse('write_file', { path: 'docs/NOTES.md', content: 'one\ntwo\nthree\n' })),
      reply(planAt(4)),
      reply(text('Wrote the notes.')),
    ]);
    const run = await world.trigger('/agent write notes');
    expect(run.outputs.status).toBe('completed');
    const [pr] = world.github.state.pulls;
    expect(pr!.draft).toBe(false);
    expect(pr!.body).toContain('- `docs/NOTES.md` +3 −0 (added)');
    expect(world.github.violations).toEqual([]);
  });

  it('refuses a `draft` that is not true or false before doing anything', async () => {
    world = await createWorld([reply(text('never'))]);
    const run = await world.trigger('/agent write notes', { inputs: { draft: 'maybe' } });
    expect(run.code).toBe(1);
    expect(run.outputs.status).toBe('failed');
    expect(run.stdout).toContain("draft must be true or false, got 'maybe'");
    expect(world.model.requests).toHaveLength(0);
    expect(world.github.state.pulls).toHaveLength(0);
  });
});

describe('a follow-up on the agent’s own pull request', () => {
  it('pushes to its head and brings its description up to date, still closing the issue', async () => {
    const changelog = [{ id: '1', text: 'Add a changelog', activeForm: 'Adding a changelog' }];
    world = await createWorld([
      ...helloScript(),
      reply(toolUse('todo', { items: [{ ...changelog[0], status: 'in_progress' }] })),
      reply(toolUse('write_file', { path: 'CHANGELOG.md', content: 'Type hints.\n' })),
      reply(toolUse('todo', { items: [{ ...changelog[0], status: 'completed' }] })),
      reply(text('Added CHANGELOG.md.')),
    ]);
    const first = await world.trigger(`/agent ${HELLO_TASK}`, { runId: '100' });
    const [pr] = world.github.state.pulls;
    expect(pr!.body.startsWith('Closes #1')).toBe(true);

    const followUp = await world.trigger('/agent add a changelog', {
      pullRequest: true,
      issueNumber: pr!.number,
      runId: '200',
    });
    expect(followUp.outputs.status).toBe('completed');
    expect(followUp.outputs.branch).toBe(first.outputs.branch);
    expect(followUp.outputs.pr_url).toBe(pr!.html_url);
    expect(world.github.state.pulls).toHaveLength(1);
    expect(pr!.body.startsWith('Closes #1\n')).toBe(true);
    expect(pr!.body).toContain('- [x] Add a changelog');
    expect(pr!.body).toContain('2 files,');
    expect(pr!.body).toContain('- `CHANGELOG.md` +1 −0 (added)');
    expect(pr!.body).toContain('Added CHANGELOG.md.');
    expect(world.github.violations).toEqual([]);
  }, 60_000); // two runs
});
