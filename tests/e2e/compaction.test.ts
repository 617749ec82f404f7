// Issue 36, points 1-3 end to end through dist/: a long run on a model the catalogue marks as compacting
// passes the trigger, compacts on the server, goes on from the block with the records re-stated, and delivers.
import { readFile } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { reply, toolUse, type ScriptStep } from '../support/anthropic/server.js';
import { HELLO_FILES, HELLO_TASK, helloScript } from '../support/anthropic/scenarios.js';
import { ON_DEMAND_BETA } from '../support/anthropic/compaction.js';
import { LONG_RUN_FILE, longRunFileText } from '../support/bench/scripts.js';
import { createWorld, type World } from './setup.js';

let world: World | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

/** The hello refactor, with three reads of a ~5,000-token log after its first edit: past a 15,000 trigger. */
function longHelloScript(): ScriptStep[] {
  const steps = helloScript();
  const reads = Array.from({ length: 3 }, () => reply(toolUse('read_file', { path: LONG_RUN_FILE })));
  steps.splice(4, 0, ...reads);
  return steps;
}

type Message = {
  role: string;
  content: { type: string; text?: string; signature?: string; content?: string }[];
};

/** The task-list lines of a checklist body. */
const listOf = (body: string) => body.split('\n').filter((line) => /^- \[[ x]\] /.test(line));

describe('compaction on the server, through dist/', () => {
  it('compacts past the trigger, sends the block first with the task and the list re-stated, and completes with its PR', async () => {
    world = await createWorld(longHelloScript(), {
      files: { ...HELLO_FILES, [LONG_RUN_FILE]: longRunFileText(20_000) },
    });
    const run = await world.trigger(`/agent ${HELLO_TASK}`, {
      inputs: { model: 'claude-opus-4-6', max_context_tokens: '20000' },
    });
    expect(run.outputs.status).toBe('completed');
    expect(world.model.violations).toEqual([]);
    expect(world.github.violations).toEqual([]);

    const requests = world.model.requests;
    const asks = requests.filter((r) => r.body.compaction);
    expect(asks).toHaveLength(1);
    const ask = asks[0]!;
    expect(ask.body.compaction.type).toBe('summarize');
    expect(String(ask.headers['anthropic-beta'])).toContain(ON_DEMAND_BETA);
    expect(ask.body.context_management).toBeUndefined();

    // The request after it: the block first, as the server signed it, then the kept turn and its answer.
    const after = requests[ask.index + 1]!.body.messages as Message[];
    expect(after[0]!.content).toHaveLength(1);
    expect(after[0]!.content[0]).toMatchObject({ type: 'compaction', signature: expect.any(String) });
    expect(after[0]!.content[0]!.content).toMatch(/^<summary>Summary of \d+ messages/);
    expect(String(requests[ask.index + 1]!.headers['anthropic-beta'])).toContain(ON_DEMAND_BETA);
    // Its user turn re-states the task, the list with the statuses it has now, and the file changed so far.
    const restated = JSON.stringify(after.at(-1));
    expect(restated).toContain(HELLO_TASK);
    expect(restated).toContain('[x] #1: Read hello.py and how it is run');
    expect(restated).toContain('[>] #2: Add type hints to `greet()`');
    expect(restated).toContain('[ ] #3: Add docstrings');
    expect(restated).toContain('In progress: #2 (Adding type hints)');
    expect(restated).toContain('hello.py (changed, +1 −1)');
    // Every later request carries the beta and starts with that one block.
    for (const later of requests.slice(ask.index + 1)) {
      expect(String(later.headers['anthropic-beta'])).toContain(ON_DEMAND_BETA);
      expect(later.body.messages[0].content[0]).toEqual(after[0]!.content[0]);
    }

    // The work is delivered.
    expect(world.github.state.pulls).toHaveLength(1);

    // The checklist: the compaction wrote nothing of its own. Every version shows the plan as the model
    // wrote it at one of its stages (the same four items, those done ticked first), and the footer counts it.
    const checklist = world.botComments()[0]!;
    const texts = ['Read hello.py', 'Add type hints', 'Add docstrings', 'Add a \\`\\_\\_main'];
    for (const version of checklist.versions) {
      const list = listOf(version);
      if (list.length === 0) continue;
      expect(list).toHaveLength(4);
      list.forEach((line, index) => expect(line).toContain(texts[index]));
      const ticks = list.map((line) => line.startsWith('- [x] '));
      expect(ticks).toEqual([...ticks].sort((a, b) => Number(b) - Number(a)));
      expect(version).not.toContain('<summary>');
    }
    const final = listOf(checklist.body);
    expect(final.every((line) => line.startsWith('- [x] '))).toBe(true);
    expect(checklist.body).toContain('1 compaction');

    // The record counts it too.
    const record = (await readFile(run.outputs.transcript!, 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(record.filter((line) => line.type === 'compaction')).toEqual([
      expect.objectContaining({ kind: 'on-demand', summarized: true }),
    ]);
    expect(record.find((line) => line.type === 'end').result.compactions).toBe(1);
  });
});
