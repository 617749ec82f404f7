// The action's run from its start, in process, against the GitHub emulator over real HTTP, for the requests it
// answers without running the agent: a comment that asks nothing, someone without write access, a request
// without a task, and `/agent cancel`; each with its reply, its reaction and the step's `status` output.
// Runs of the agent itself are driven whole through dist/ by tests/e2e/.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { run } from '../../src/action/main.js';
import { renderChecklist } from '../../src/github/checklist/render.js';
import { emptyUsage } from '../../src/model/usage.js';
import { useActionStart, type Asked } from '../support/action-start.js';
import { usePrinted } from '../support/printed.js';

const ask = useActionStart();
usePrinted();
afterEach(() => {
  vi.unstubAllEnvs();
  process.exitCode = undefined;
});

/** Runs the action on what was asked, with the step's files where the runner would name them. */
async function runOn(asked: Asked): Promise<Record<string, string>> {
  vi.stubEnv('GITHUB_OUTPUT', asked.env.GITHUB_OUTPUT!);
  await run(Promise.resolve(asked.start));
  const text = await readFile(join(asked.dir, 'output'), 'utf8');
  return Object.fromEntries(
    [...text.matchAll(/^([a-z_]+)<<(\S+)\n([\s\S]*?)\n\2$/gm)].map(([, name, , value]) => [name, value]),
  );
}

const replies = ({ emu, comment }: Asked) =>
  [...emu.state.comments.values()].filter((c) => c.id !== comment.id).map((c) => c.body);

describe('run', () => {
  it('does nothing for a comment that asks nothing, and says it skipped', async () => {
    const asked = await ask('Thanks, looks good.');
    expect(await runOn(asked)).toMatchObject({ status: 'skipped', pr_url: '', todos: '[]' });
    expect(asked.emu.calls).toEqual([]);
  });

  it('turns away someone without write access, with a reply and the status refused', async () => {
    const asked = await ask('/agent delete everything', { user: 'reader' });
    expect((await runOn(asked)).status).toBe('refused');
    expect(replies(asked)).toEqual([
      '@reader only collaborators with write access can run todo-agent here, so this request was not run.',
    ]);
    expect(asked.comment.reactions).toContain('eyes');
    expect(asked.emu.violations).toEqual([]);
  });

  it('answers a request without a task with how to ask', async () => {
    const asked = await ask('/agent');
    expect((await runOn(asked)).status).toBe('skipped');
    const [reply, ...more] = replies(asked);
    expect(more).toEqual([]);
    expect(reply).toMatch(/^todo-agent did not start: no task was given\.\n\nUsage: `\/agent <what to do>`/);
  });

  it('cancels the run going on the issue, with a 👍 and the status completed', async () => {
    const asked = await ask('/agent cancel');
    let stopped = 0;
    asked.emu.addWorkflowRun({ id: 77, onCancel: () => stopped++ });
    asked.emu.addComment(
      1,
      'github-actions[bot]',
      renderChecklist({
        task: 'Tidy up',
        items: [],
        phase: 'working',
        turn: 1,
        usage: emptyUsage(),
        resume: { issue: 1, runId: '77' },
      }),
    );
    expect((await runOn(asked)).status).toBe('completed');
    expect(stopped).toBe(1);
    expect(asked.comment.reactions).toEqual(['eyes', '+1']);
    expect(replies(asked).at(-1)).toMatch(/^⏹ Cancelling \[the run\]\(.*\/actions\/runs\/77\)/);
    expect(asked.emu.violations).toEqual([]);
  });
});
