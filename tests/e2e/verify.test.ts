// The verification gate in a run of dist/index.js: verify_command runs when every item is completed; a
// failure goes back to the model as a new message with a Fix item, and the PR waits until it passes.
import { afterEach, describe, expect, it } from 'vitest';
import { reply, text, toolUse } from '../support/anthropic/server.js';
import { expectToContainAll } from '../support/contains.js';
import { newestResults } from '../support/requests.js';
import { createWorld, originGit, type World } from './setup.js';

let world: World | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

const WORK = { id: '1', text: 'Write the notes', activeForm: 'Writing the notes' };
const FIX = { id: '2', text: 'Fix: verify_command fails' };
const list = (...items: Array<Record<string, string>>) => toolUse('todo', { items });
const done = (item: Record<string, string>) => ({ ...item, status: 'completed' });

const withoutCacheMarks = (messages: unknown): unknown[] =>
  JSON.parse(
    JSON.stringify(messages, (key, value: unknown) => (key === 'cache_control' ? undefined : value)),
  );

/** Passes once ok.txt exists; says what is wrong otherwise. */
const CHECK = 'test -f ok.txt || { echo "FAIL: ok.txt is missing"; exit 1; }';

/** Work, done, summary: round 1 fails. The Fix item closed with no change, summary: round 2 fails. */
const TWO_FAILING_ROUNDS = [
  reply(list({ ...WORK, status: 'in_progress' })),
  reply(toolUse('write_file', { path: 'notes.md', content: 'notes\n' })),
  reply(list(done(WORK))),
  reply(text('Wrote the notes.')),
  reply(list(done(WORK), done(FIX))),
  reply(text('Should pass now.')),
];

/** A file as the pushed branch holds it, in the world's origin. */
const pushedFile = (branch: string | undefined, file: string) =>
  originGit(world!, 'show', `${branch}:${file}`);

describe('verify_command', () => {
  it('sends two failures back to the model, then opens the PR once it passes, with 3 rounds shown', async () => {
    world = await createWorld([
      ...TWO_FAILING_ROUNDS,
      reply(toolUse('write_file', { path: 'ok.txt', content: 'ok\n' })),
      reply(list(done(WORK), done(FIX))),
      reply(text('Wrote the notes and made the check pass.')), // round 3 passes
    ]);
    const run = await world.trigger('/agent write notes', { inputs: { verify_command: CHECK } });
    const { model, github } = world;
    expect(run.outputs.status).toBe('completed');
    expect(model.remaining()).toBe(0);
    expect(model.violations).toEqual([]);

    // Each failure is a new user message at the end; nothing sent before it changed (cache markers aside).
    const afterFirst = withoutCacheMarks(model.requests[4]!.body.messages);
    const before = withoutCacheMarks(model.requests[3]!.body.messages);
    expect(afterFirst.slice(0, before.length + 1)).toEqual([...before, afterFirst[before.length]]);
    expect(afterFirst).toHaveLength(before.length + 2); // the assistant's summary, then the failure
    const failure = JSON.stringify(afterFirst.at(-1));
    expect(failure).toContain('verify command `test -f ok.txt');
    expect(failure).toContain('round 1 of 3');
    expect(failure).toContain('exit code 1');
    expect(failure).toContain('FAIL: ok.txt is missing');
    expect(JSON.stringify(model.requests[6]!.body.messages.at(-1))).toContain('round 2 of 3');

    // The Fix item was opened on the list (the model was told), and closed by the model.
    expect(failure).toContain('has the item \\"Fix: verify_command fails\\" in progress');
    const checklist = world.botComments()[0]!;
    expect(checklist.body).toContain('- [x] Fix: verify\\_command fails');
    expect(checklist.body).toMatch(/✅ `test -f ok\.txt.*` passed in \d+ s \(3 rounds\)/);

    const pr = github.state.pulls[0]!;
    expect(pr.body).toMatch(/✅ `test -f ok\.txt.*` passed in \d+ s \(3 rounds\)/);
    expect(pr.body).toContain('- [x] Fix: verify\\_command fails');
  });

  it('stops incomplete after verify_attempts failures: branch pushed, no PR, the output shown', async () => {
    world = await createWorld(TWO_FAILING_ROUNDS); // with 2 attempts, no rounds left after the second
    const run = await world.trigger('/agent write notes', {
      inputs: { verify_command: 'echo "boom: 1 test failed"; exit 2', verify_attempts: '2' },
    });
    expect(run.code).toBe(0);
    expect(run.outputs.status).toBe('incomplete');
    expect(world.model.remaining()).toBe(0);
    expect(run.outputs.pr_url).toBe('');
    expect(world.github.state.pulls).toHaveLength(0);
    const notes = await pushedFile(run.outputs.branch, 'notes.md');
    expect(notes).toBe('notes');
    const final = world.botComments()[0]!.body;
    expectToContainAll(final, [
      '⏸ todo-agent stopped',
      'still fails after 2 rounds',
      'failed: exit code 2, round 2 of 2',
      '<details><summary>Output of echo',
      '```\nboom: 1 test failed\n```',
      '/agent continue',
    ]);
    expect(run.summary).toContain('boom: 1 test failed');
  });

  it('ends incomplete when verify fails with and without the change: the blocker in the comment, no item deleted', async () => {
    const BLOCKED = {
      id: '3',
      text: 'Blocked: verify_command fails without this change too (boom: 1 test failed)',
      status: 'pending',
    };
    const CHECK_WITHOUT =
      'git stash -u && { sh -c "$VERIFY"; echo "status without the change: $?"; }; git stash pop';
    world = await createWorld([
      reply(list({ ...WORK, status: 'in_progress' })),
      reply(toolUse('write_file', { path: 'notes.md', content: 'notes\n' })),
      reply(list(done(WORK))),
      reply(text('Wrote the notes.')), // round 1 fails
      reply(
        toolUse('bash', { command: CHECK_WITHOUT.replace('$VERIFY', 'echo boom: 1 test failed; exit 2') }),
      ),
      reply(list(done(WORK), { ...FIX, status: 'pending' }, BLOCKED)),
      reply(text('The verify command fails the same way without my change, so the Fix item is blocked.')),
    ]);
    const run = await world.trigger('/agent write notes', {
      inputs: { verify_command: 'echo "boom: 1 test failed"; exit 2' },
    });
    const { model, github } = world;
    expect(run.outputs.status).toBe('incomplete');
    expect(model.remaining()).toBe(0);
    expect(model.violations).toEqual([]);
    // The failure message offered the way out; the model's own check ran without the change.
    const failure = JSON.stringify(model.requests[4]!.body.messages.at(-1));
    expect(failure).toContain('(`git stash`, run the command, `git stash pop`)');
    const without = newestResults(model.requests[5]!)[0]!.text;
    expect(without).toContain('boom: 1 test failed\nstatus without the change: 2');
    // Blocked: one round only, no nudge after the stop, the branch pushed with the work, no PR.
    expect(model.requests).toHaveLength(7);
    expect(github.state.pulls).toHaveLength(0);
    const notes = await pushedFile(run.outputs.branch, 'notes.md');
    expect(notes).toBe('notes');
    const final = world.botComments()[0]!.body;
    expect(final).toContain('⏸ todo-agent stopped');
    expect(final).toContain(
      'the model stopped at a blocker: verify\\_command fails without this change too \\(boom: 1 test failed\\)',
    );
    // Every item is still there: the work done, the Fix item open, the blocker open.
    expect(final).toContain('- [x] Write the notes');
    expect(final).toContain('- [ ] Fix: verify\\_command fails');
    expect(final).toContain('- [ ] Blocked: verify\\_command fails without this change too');
    expect(final).toContain('/agent continue');
  });
});
