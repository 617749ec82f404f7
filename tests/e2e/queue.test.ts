// No request lost (issue 20, point 2): requests on one issue wait their turn on the Actions API, in order,
// each saying what it waits for, instead of a concurrency group cancelling the older pending one.
import type { ChildProcess } from 'node:child_process';
import { mkdtemp } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { issueCommentEvent, runAction } from '../support/action-harness.js';
import { reply, text, toolUse, type ScriptStep } from '../support/anthropic/server.js';
import { createWorld, KEY, openingText, TOKEN, type World } from './setup.js';

let world: World | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

/** One short run: a one-item plan, done, and a summary. */
const oneItem = (word: string): ScriptStep[] => [
  reply(toolUse('todo', { items: [{ id: '1', text: `Say ${word}`, status: 'completed' }] })),
  reply(text(`Said ${word}.`)),
];

describe('the per-thread queue', () => {
  it('answers three comments made within a second, all three, one at a time, in order', async () => {
    world = await createWorld([...oneItem('one'), ...oneItem('two'), ...oneItem('three')]);
    const w = world;
    const words = ['one', 'two', 'three'];
    // Three comments, then their three workflow runs, all started at once on their own checkouts.
    const started = new Date();
    const runs = await Promise.all(
      words.map(async (word, index) => {
        const body = `/agent say ${word}`;
        const comment = w.github.addComment(1, 'maintainer', body);
        const id = 101 + index;
        w.github.addWorkflowRun({
          id,
          title: 'todo-agent #1',
          createdAt: started.toISOString().replace(/\.\d{3}Z$/, 'Z'),
        });
        const workspace = await mkdtemp(join(w.sandbox.root, `checkout-${word}-`));
        await w.sandbox.git(['clone', '-q', w.sandbox.origin, workspace], w.sandbox.root);
        return { id, body, comment, workspace };
      }),
    );
    const results = await Promise.all(
      runs.map(async ({ id, body, comment, workspace }) => {
        const run = await runAction({
          sandbox: { ...w.sandbox, workspace },
          apiUrl: w.github.url,
          event: issueCommentEvent({ body, commentId: comment.id, createdAt: comment.created_at }),
          inputs: { github_token: TOKEN, anthropic_api_key: KEY, anthropic_base_url: w.model.url },
          runId: String(id),
        });
        // GitHub marks the run completed when its job ends.
        w.github.state.workflowRuns.get(id)!.status = 'completed';
        return run;
      }),
    );

    expect(results.map((r) => r.outputs.status)).toEqual(['completed', 'completed', 'completed']);
    // The model saw the three tasks one after the other, never two at once.
    const asked = w.model.requests.map(
      (request) => /<task>\nsay (\w+)\n<\/task>/.exec(openingText(request))?.[1],
    );
    expect(asked).toEqual(['one', 'one', 'two', 'two', 'three', 'three']);
    // Each comment got its 👀; the later two said what they waited for.
    for (const { comment } of runs)
      expect(w.github.state.comments.get(comment.id)!.reactions).toContain('eyes');
    const waits = w
      .botComments()
      .filter((c) => c.body.startsWith('⏳'))
      .map((c) => c.body)
      .sort();
    expect(waits).toEqual([
      '⏳ todo-agent will start on this request once [run 101](https://github.com/octo-org/hello-world/actions/runs/101) on this issue finishes (1 request ahead).',
      '⏳ todo-agent will start on this request once [run 101](https://github.com/octo-org/hello-world/actions/runs/101), [run 102](https://github.com/octo-org/hello-world/actions/runs/102) on this issue finish (2 requests ahead).',
    ]);
    expect(w.github.violations).toEqual([]);
  });

  it('says so when a waiting request is cancelled, and does not run it', async () => {
    world = await createWorld([]);
    const w = world;
    // A run is going on the issue and does not end while this one waits.
    w.github.addWorkflowRun({ id: 101, title: 'todo-agent #1' });
    w.github.addWorkflowRun({ id: 102, title: 'todo-agent #1' });
    let child: ChildProcess | undefined;
    const running = w.trigger('/agent say one', { runId: '102', onSpawn: (spawned) => (child = spawned) });
    while (!w.botComments().some((c) => c.body.startsWith('⏳')))
      await new Promise((done) => setTimeout(done, 50));
    child!.kill('SIGTERM');
    const run = await running;
    expect(run.outputs.status).toBe('cancelled');
    expect(w.botComments().at(-1)!.body).toBe(
      '⏹ This request was cancelled while it waited its turn, so it did not run.',
    );
    expect(w.model.requests).toHaveLength(0);
  });
});
