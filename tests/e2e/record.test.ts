// The run record (issue 20, point 1): a JSON Lines file in RUNNER_TEMP, its path as the `transcript` output,
// a short rendering in the job summary, and the final checklist saying where it is. No secret in it.
import { readFile, rename } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { reply, text, toolUse } from '../support/anthropic/server.js';
import { HELLO_TASK, helloScript, planAt } from '../support/anthropic/scenarios.js';
import { createWorld, KEY, TOKEN, type World } from './setup.js';

let world: World | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- record lines, read field by field
type Line = Record<string, any>;
const lines = (text: string): Line[] =>
  text
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Line);

describe('the run record', () => {
  it('holds every request, response, tool call with its exit code, usage, the delivery and the result', async () => {
    world = await createWorld(helloScript());
    const run = await world.trigger(`/agent ${HELLO_TASK}`);
    expect(run.outputs.status).toBe('completed');
    const path = run.outputs.transcript!;
    expect(path).toMatch(/todo-agent-record\.jsonl$/);
    const record = lines(await readFile(path, 'utf8'));
    const types = record.map((line) => line.type);
    expect(types[0]).toBe('start');
    expect(record[0]).toMatchObject({
      v: 1,
      task: HELLO_TASK,
      source: 'issue_comment',
      thread: 'octo-org/hello-world#1',
    });
    expect(types.filter((t) => t === 'request')).toHaveLength(world.model.requests.length);
    expect(types.filter((t) => t === 'response')).toHaveLength(world.model.requests.length);
    expect(types.filter((t) => t === 'turn_end')).toHaveLength(world.model.requests.length);
    expect(types.slice(-2)).toEqual(['delivery', 'result']);
    // The first request carries the task as the model read it.
    expect(JSON.stringify(record.find((l) => l.type === 'request')!.messages)).toContain(HELLO_TASK);
    const bash = record.find((l) => l.type === 'tool' && l.name === 'bash')!;
    expect(bash).toMatchObject({ input: { command: 'python3 hello.py' }, isError: false });
    expect(bash.exitCode === 0 || bash.exitCode === 127).toBe(true); // without python3 the command fails
    expect(typeof bash.durationMs).toBe('number');
    expect(record.find((l) => l.type === 'turn_end')!.usage.output_tokens).toBeGreaterThan(0);
    expect(record.at(-2)).toMatchObject({
      committed: ['M\thello.py'],
      heldBack: [],
      pushed: 'agent/issue-1-4242',
      pr: { number: world.github.state.pulls[0]!.number },
    });
    expect(record.at(-1)).toMatchObject({ status: 'completed' });

    // No secret of the job: not the key, not the token.
    const raw = await readFile(path, 'utf8');
    for (const secret of [KEY, TOKEN]) expect(raw).not.toContain(secret);

    // The summary shows it collapsed; the checklist says where it is.
    expect(run.summary).toMatch(/<details><summary>Run record/);
    expect(run.summary).toContain('» ');
    const final = world.botComments()[0]!.body;
    expect(final).toContain('todo-agent-record.jsonl');
  });

  it('keeps a secret the model wrote out of it, and holds the work as a patch when the push fails', async () => {
    const leaked = 'ghp_' + 'A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8';
    world = await createWorld([
      reply(planAt(4)),
      reply(toolUse('write_file', { path: 'notes.md', content: `token ${leaked}\n` })),
      reply(toolUse('bash', { command: 'cat notes.md' })),
      reply(text('Done.')),
    ]);
    // The remote is gone: every push fails, and the record keeps what would have been pushed.
    await rename(world.sandbox.origin, `${world.sandbox.origin}.gone`);
    const run = await world.trigger('/agent write notes');
    await rename(`${world.sandbox.origin}.gone`, world.sandbox.origin);
    const raw = await readFile(run.outputs.transcript!, 'utf8');
    expect(raw).not.toContain(leaked);
    const delivery = lines(raw).find((line) => line.type === 'delivery')!;
    expect(delivery.committed).toEqual(['A\tnotes.md']);
    expect(delivery.pushed).toBeUndefined();
    expect(delivery.refused.reason).toMatch(/could not be pushed/);
    expect(delivery.refused.patch).toContain('+++ b/notes.md');
    expect(delivery.refused.patch).toContain('token ***');
  });
});
