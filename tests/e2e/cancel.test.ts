import type { ChildProcess } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { MODEL_MODES, reply, text, toolUse } from '../support/anthropic-server.js';
import { planAt } from '../support/scenarios.js';
import { createWorld, type World } from './setup.js';

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
    const notes = await current.sandbox.git(
      ['--git-dir', current.sandbox.origin, 'show', `${branch}:NOTES.md`],
      current.sandbox.root,
    );
    expect(notes).toBe('work in progress');
    const final = current.botComments()[0]!.body;
    expect(final).toContain('⏹ todo-agent was cancelled');
    expect(final).toContain(branch);
    expect(current.github.state.pulls).toHaveLength(0);
  });
});
