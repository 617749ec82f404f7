// The task tool in a run of dist/index.js, under the default `tool_network: allowlist`: the model hands a
// survey to an explore helper, whose list shows nested under the item in progress in the checklist comment
// while it runs and folds to one line when it ends. The helper's bash runs in a read-only sandbox behind the
// run's network gate; the parent's list, its reminder count and the saved state never see the helper's.
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { reply, text, toolUse } from '../support/anthropic/server.js';
import type { RecordedRequest, ScriptedResponse, ScriptStep } from '../support/anthropic/server.js';
import { REMINDER_PREFIX } from '../../src/agent/todo/reminder.js';
import { openingText, originGit, useWorldsPerTest, type World } from './setup.js';

let world: World | undefined;
const worlds = useWorldsPerTest();

const MARKER = 'HELPER-SURVEY';
const isHelper = (request: RecordedRequest) => openingText(request).includes(MARKER);

const plan = (statuses: string[]) =>
  toolUse('todo', {
    items: [
      { text: 'Survey hello.py', activeForm: 'Surveying hello.py', status: statuses[0] },
      { text: 'Write NOTES.md', activeForm: 'Writing NOTES.md', status: statuses[1] },
    ],
  });
const helperList = (statuses: string[]) =>
  toolUse('todo', {
    items: [
      { text: 'Read hello.py', activeForm: 'Reading hello.py', status: statuses[0] },
      { text: 'Check the workspace is read-only', activeForm: 'Checking the sandbox', status: statuses[1] },
      { text: 'Try the network', activeForm: 'Trying the network', status: statuses[2] },
    ],
  });

/** The run's and the helper's replies, each request answered from its own session's queue. */
function script(): ScriptStep[] {
  const main: ScriptedResponse[] = [
    reply(plan(['in_progress', 'pending'])),
    reply(
      toolUse('task', {
        description: 'Survey hello.py',
        prompt: `${MARKER}: say what hello.py does, and whether you can change files or reach hosts.`,
      }),
    ),
    reply(plan(['completed', 'in_progress'])),
    reply(toolUse('write_file', { path: 'NOTES.md', content: '# Notes\n\nhello.py prints a greeting.\n' })),
    reply(plan(['completed', 'completed'])),
    reply(text('Wrote NOTES.md from the helper’s survey.')),
  ];
  const helper: ScriptedResponse[] = [
    reply(helperList(['in_progress', 'pending', 'pending'])),
    reply(toolUse('read_file', { path: 'hello.py' })),
    reply(helperList(['completed', 'in_progress', 'pending'])),
    reply(
      toolUse('bash', {
        command:
          'touch probe.txt; echo "touch: $?"; curl -sS http://exfil.todo-agent.test/ 2>&1; echo "curl: $?"',
      }),
    ),
    reply(helperList(['completed', 'completed', 'completed'])),
    reply(
      text(
        'hello.py prints a greeting. The workspace is read-only here and exfil.todo-agent.test is refused.',
      ),
    ),
  ];
  const step = (request: RecordedRequest) => (isHelper(request) ? helper : main).shift()!;
  return Array.from({ length: main.length + helper.length }, () => step);
}

/** The texts of the user turn a request ends with (tool results and notes). */
function lastTexts(request: RecordedRequest): string[] {
  const content = request.body.messages.at(-1)!.content as Array<{
    type: string;
    text?: string;
    content?: unknown;
  }>;
  return content.map((block) => (block.type === 'text' ? block.text! : String(block.content)));
}

describe('the task tool in the bundled action', () => {
  it("nests the helper's list in the checklist while it runs, folds it when it ends, and keeps the parent's list its own", async () => {
    // A model that takes a moment per reply, so that the comment is written while the helper works.
    world = await worlds.create(script(), { latencyMs: 400 });
    const run = await world.trigger('/agent write notes on hello.py');
    expect([run.outputs.status, world.model.violations, world.github.violations, run.stderr]).toEqual([
      'completed',
      [],
      [],
      '',
    ]);
    expect(world.model.remaining()).toBe(0);

    // While the helper ran, its list was nested under the parent's item in progress.
    const { versions, body } = world.botComments()[0]!;
    // The first versions may show it planning: the one that counts shows its list.
    const nested = versions.find((version) =>
      / {2}- 🔄 helper: \*\*Survey hello\.py\*\* \(explore\) · \d of 3 done/.test(version),
    );
    expect(nested).toBeDefined();
    expect(nested).toMatch(
      /- \[ \] 🔄 \*\*Surveying hello\.py\*\* — Survey hello\.py\n {2}- 🔄 helper: \*\*Survey hello\.py\*\* \(explore\) · \d of 3 done\n {4}- /,
    );
    // Once it ended: one line under the item, and the parent's list and saved state are the parent's alone.
    expect(body).toContain(
      '- [x] Survey hello.py\n  - ✅ helper: **Survey hello.py** (explore) · completed, 3 of 3 done, 6 turns\n- [x] Write NOTES.md',
    );
    expect(body).not.toContain('Read hello.py');
    expect(JSON.parse(run.outputs.todos!).map((item: { text: string }) => item.text)).toEqual([
      'Survey hello.py',
      'Write NOTES.md',
    ]);
    const state = /<!-- agent-state (.*) -->/.exec(body)![1]!;
    expect(state).not.toContain('Read hello.py');

    // The helper's bash ran read-only, behind the run's network gate.
    const helperRequests = world.model.requests.filter(isHelper);
    const parentRequests = world.model.requests.filter((request) => !isHelper(request));
    expect(helperRequests).toHaveLength(6);
    const bash = lastTexts(helperRequests[4]!)[0]!;
    expect(bash).toContain('Read-only file system');
    expect(bash).toContain('touch: 1');
    expect(bash).toContain(
      'the network gate refused exfil.todo-agent.test:80: exfil.todo-agent.test is not in the allowlist',
    );
    const pull = world.github.state.pulls.at(-1)!;
    expect(pull.body).toContain('- `exfil.todo-agent.test` ×1');
    const files = await originGit(world, 'ls-tree', '-r', '--name-only', pull.head);
    expect(files.split('\n')).toContain('NOTES.md');
    expect(files).not.toContain('probe.txt');

    // The parent got the helper's answer, and its reminder count never saw the helper's six turns.
    expect(lastTexts(parentRequests[2]!)[0]).toContain(
      'hello.py prints a greeting. The workspace is read-only here',
    );
    for (const request of parentRequests)
      expect(lastTexts(request).some((t) => t.startsWith(REMINDER_PREFIX))).toBe(false);

    // The record keeps the helper's events under its own session id.
    const record = (await readFile(run.outputs.transcript!, 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string; session?: string; event?: { type: string } });
    const helperLines = record.filter((line) => line.type === 'helper');
    expect(new Set(helperLines.map((line) => line.session))).toEqual(new Set(['helper-1']));
    expect(helperLines.filter((line) => line.event?.type === 'todos')).toHaveLength(3);
    expect(record.filter((line) => line.type === 'todos')).toHaveLength(3);
  }, 240_000);
});
