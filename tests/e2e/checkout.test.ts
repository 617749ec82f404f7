// A shallow checkout (actions/checkout's default `fetch-depth: 1`): a fresh run, `/agent continue` on the
// branch an earlier run pushed, and a run on a pull request's head all work without the history.
import { describe, expect, it } from 'vitest';
import { changelogScript, HELLO_RESULT, HELLO_TASK, helloScript } from '../support/anthropic/scenarios.js';
import { changelogOnFeatureHead, originGit, useWorldsPerTest, type World } from './setup.js';

let world: World | undefined;
const worlds = useWorldsPerTest();

const originLog = (w: World, ref: string) => originGit(w, 'log', '--format=%s', ref);

/** Gives main some history, so a depth-1 checkout really leaves commits out. */
async function addHistory(w: World): Promise<void> {
  for (const subject of ['Second commit', 'Third commit']) {
    await w.sandbox.git(['commit', '-q', '--allow-empty', '-m', subject]);
  }
  await w.sandbox.git(['push', '-q', 'origin', 'main']);
}

describe('a shallow checkout (fetch-depth: 1)', () => {
  it('runs, stops at max_turns, and finishes with `/agent continue` on the pushed branch', async () => {
    const script = helloScript();
    world = await worlds.create(script.slice(0, 5), { shallow: true });
    await addHistory(world);
    const first = await world.trigger(`/agent ${HELLO_TASK}`, { inputs: { max_turns: '5' }, runId: '100' });
    expect(first.outputs.status).toBe('incomplete');
    expect(await world.sandbox.git(['rev-parse', '--is-shallow-repository'])).toBe('true');

    world.model.push(...script.slice(5));
    const second = await world.trigger('/agent continue', { runId: '200' });
    expect(second.stderr).toBe('');
    expect(second.outputs.status).toBe('completed');
    expect(second.outputs.branch).toBe('agent/issue-1-100');
    expect(world.github.state.pulls.map((pull) => pull.head)).toEqual(['agent/issue-1-100']);
    const file = await originGit(world, 'show', 'agent/issue-1-100:hello.py');
    expect(file).toBe(HELLO_RESULT.trimEnd());
    // Both runs' commits sit on main's full history.
    expect((await originLog(world, 'agent/issue-1-100')).split('\n')).toEqual([
      HELLO_TASK,
      HELLO_TASK,
      'Third commit',
      'Second commit',
      'Initial commit',
    ]);
  });

  it("works on a pull request's head that forked from an older main, and pushes to it", async () => {
    world = await worlds.create(changelogScript(), {
      issue: { pull_request: { head: 'feature' } },
      shallow: true,
    });
    await changelogOnFeatureHead(world, () => addHistory(world!));
    expect((await originLog(world, 'feature')).split('\n')).toEqual([
      'add a changelog',
      'feature work',
      'Initial commit',
    ]);
    expect(world.github.violations).toEqual([]);
  });
});
