// Cancellation: a SIGTERM from the runner, and `/agent cancel` (issue 11, point 4) through the Actions API.
import type { ChildProcess } from 'node:child_process';
import { mkdtemp } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { issueCommentEvent, runAction } from '../support/action-harness.js';
import { MODEL_MODES, reply, text, toolUse, type ScriptStep } from '../support/anthropic/server.js';
import { planAt } from '../support/anthropic/scenarios.js';
import { createWorld, KEY, originGit, TOKEN, type World } from './setup.js';

let world: World | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

/** Resolves once `check` holds, polling; the test's own timeout bounds it. */
async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((done) => setTimeout(done, 25));
}

describe.each(MODEL_MODES)('cancellation (%s)', (mode) => {
  it('on SIGTERM stops the loop, pushes the work in progress and writes the cancelled comment before a 5 s kill', async () => {
    world = await createWorld(
      [
        reply(planAt(0)),
        reply(toolUse('write_file', { path: 'NOTES.md', content: 'work in progress\n' })),
        reply(toolUse('bash', { command: 'sleep 60' })),
        reply(text('never reached')),
      ],
      { mode },
    );
    const current = world;
    let child: ChildProcess | undefined;
    const running = current.trigger('/agent write notes', { onSpawn: (spawned) => (child = spawned) });
    // Wait until the model has asked for the long command, and the command has had a moment to start.
    await until(() => current.model.requests.length >= 3);
    await new Promise((done) => setTimeout(done, 300));
    child!.kill('SIGTERM');
    // The runner's patience, played strictly: whatever is not done 5 s after SIGTERM is lost.
    const killer = setTimeout(() => child!.kill('SIGKILL'), 5_000);
    const run = await running;
    clearTimeout(killer);

    expect(run.signal).toBeNull(); // it exited by itself, not by the SIGKILL
    expect(run.outputs.status).toBe('cancelled');
    expect(current.model.requests).toHaveLength(3);
    const branch = run.outputs.branch!;
    expect(branch).toBe('agent/issue-1-4242');
    const notes = await originGit(current, 'show', `${branch}:NOTES.md`);
    expect(notes).toBe('work in progress');
    const final = current.botComments()[0]!.body;
    expect(final).toContain('⏹ todo-agent was cancelled');
    expect(final).toContain(branch);
    expect(current.github.state.pulls).toHaveLength(0);
  });
});

/** A model that keeps running `sleep 1`, as on a long task, until the run is stopped. */
const busy: ScriptStep = (_request, server) => {
  server.push(busy);
  return reply(toolUse('bash', { command: 'sleep 1' }));
};

/** `/agent cancel` as another workflow run does it: its own fresh checkout, while the first run goes on. */
async function cancelComment(w: World, options: { runId?: string; body?: string } = {}) {
  const body = options.body ?? '/agent cancel';
  const comment = w.github.addComment(1, 'maintainer', body);
  const workspace = await mkdtemp(join(w.sandbox.root, 'second-checkout-'));
  return await runAction({
    sandbox: { ...w.sandbox, workspace },
    apiUrl: w.github.url,
    event: issueCommentEvent({ body, commentId: comment.id, createdAt: comment.created_at }),
    inputs: { github_token: TOKEN, anthropic_api_key: KEY, anthropic_base_url: w.model.url },
    runId: options.runId ?? '200',
  });
}

const OPEN_CHECKLIST =
  '### 🤖 todo-agent is working on: write notes\n\n_planning…_\n\n<!-- agent-state {"v":1,"items":[],"runId":"100","issue":1} -->';

describe('/agent cancel', () => {
  it('cancels the run going on the issue, which pushes its work and says cancelled', async () => {
    world = await createWorld([
      reply(planAt(0)),
      reply(toolUse('write_file', { path: 'NOTES.md', content: 'work in progress\n' })),
      busy,
    ]);
    const current = world;
    let child: ChildProcess | undefined;
    const running = current.trigger('/agent write notes', {
      runId: '100',
      onSpawn: (spawned) => {
        child = spawned;
        // The runner stops a cancelled job with SIGTERM (after SIGINT); the emulator plays that part.
        current.github.addWorkflowRun({ id: 100, onCancel: () => child!.kill('SIGTERM') });
      },
    });
    await until(
      () =>
        current.model.requests.length >= 3 && current.botComments()[0]?.body.includes('- [ ] 🔄') === true,
    );

    const cancel = await cancelComment(current);
    expect(cancel.code).toBe(0);
    expect(cancel.outputs.status).toBe('completed');
    const reply_ = current.botComments().at(-1)!.body;
    expect(reply_).toContain(
      '⏹ Cancelling [the run](https://github.com/octo-org/hello-world/actions/runs/100)',
    );
    expect(current.github.state.workflowRuns.get(100)).toMatchObject({
      status: 'completed',
      conclusion: 'cancelled',
    });

    const run = await running;
    expect(run.outputs.status).toBe('cancelled');
    expect(await originGit(current, 'show', `${run.outputs.branch}:NOTES.md`)).toBe('work in progress');
    expect(current.botComments()[0]!.body).toContain('⏹ todo-agent was cancelled');
    expect(current.github.violations).toEqual([]);
  });

  it('says the workflow needs `actions: write` when the token may not cancel, and fails the step', async () => {
    world = await createWorld([], { actionsWrite: false });
    world.github.addComment(1, 'github-actions[bot]', OPEN_CHECKLIST);
    world.github.addWorkflowRun({ id: 100 });
    const cancel = await cancelComment(world);
    expect(cancel.code).toBe(1);
    expect(cancel.outputs.status).toBe('failed');
    expect(world.botComments().at(-1)!.body).toContain('the workflow needs the `actions: write` permission');
    expect(world.github.state.workflowRuns.get(100)!.status).toBe('in_progress');
    expect(world.model.requests).toHaveLength(0);
  });

  it('answers that nothing is going when no checklist is open, or the run has finished', async () => {
    world = await createWorld([]);
    const none = await cancelComment(world);
    expect(none.outputs.status).toBe('skipped');
    expect(world.botComments().at(-1)!.body).toContain('There is no todo-agent run going on this issue');
    world.github.addComment(1, 'github-actions[bot]', OPEN_CHECKLIST);
    world.github.addWorkflowRun({ id: 100, status: 'completed' });
    const finished = await cancelComment(world, { runId: '300' });
    expect(finished.outputs.status).toBe('skipped');
    expect(world.botComments().at(-1)!.body).toContain('has already finished');
    expect(world.github.violations).toEqual([]);
  });
});
