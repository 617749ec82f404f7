import { mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { childEnv } from '../../src/sandbox/commands/child-env.js';
import type { AgentEvent, NudgeKind } from '../../src/agent/events.js';
import type { DeliveryList } from '../../src/agent/options.js';
import { MAX_TODOS, TodoManager, type TodoItem } from '../../src/agent/todo/todos.js';
import {
  failureMessage,
  FIX_ITEM,
  LastLook,
  VerifyGate,
  withFixItem,
  type VerifiedRun,
} from '../../src/agent/verify.js';
import { Redactor } from '../../src/text/redact.js';
import { verifyReport } from '../support/verify-report.js';

let ws: string;
beforeEach(async () => {
  ws = await realpath(await mkdtemp(path.join(tmpdir(), 'todo-agent-verify-')));
});
afterEach(async () => {
  await rm(ws, { recursive: true, force: true });
});

const redaction = new Redactor();
redaction.add('hunter2');

const gate = (command: string, attempts = 2, bashTimeoutSeconds = 20) =>
  new VerifyGate(
    { command, attempts },
    { workspace: ws, bashTimeoutSeconds, env: childEnv(process.env), redaction },
  );

describe('VerifyGate', () => {
  it('runs the command in the workspace, counts rounds, and keeps the redacted end of the output', async () => {
    const check = gate('cat marker.txt; echo "password hunter2"; seq 1 3000; exit 4');
    await writeFile(path.join(ws, 'marker.txt'), 'from the workspace\n');
    const first = await check.run();
    expect(first).toMatchObject({ passed: false, round: 1, attempts: 2, exitCode: 4, timedOut: false });
    expect(first.outputTail.startsWith('…')).toBe(true);
    expect(first.outputTail.endsWith('2999\n3000\n')).toBe(true);
    expect(first.outputTail.length).toBeLessThanOrEqual(4_001);
    expect(check.exhausted).toBe(false);
    const second = await check.run();
    expect(second.round).toBe(2);
    expect(check.exhausted).toBe(true);
    expect(check.last).toBe(second);

    const small = await gate('cat marker.txt; echo "password hunter2"').run();
    expect(small).toMatchObject({ passed: true, exitCode: 0 });
    expect(small.outputTail).toBe('from the workspace\npassword ***\n');
  });

  it('fails a pipeline whose first part fails, and times out with bash_timeout', async () => {
    expect(await gate('false | cat').run()).toMatchObject({ passed: false, exitCode: 1 });
    const slow = await gate('sleep 30', 1, 1).run();
    expect(slow).toMatchObject({ passed: false, timedOut: true });
  });
});

describe('VerifyGate.check', () => {
  /** A run whose every item is completed, recording what the round tells it. */
  function completedRun() {
    const todos = new TodoManager([{ id: '1', text: 'Write it', status: 'completed' }]);
    const events: AgentEvent[] = [];
    const nudges: { kind: NudgeKind; text: string }[] = [];
    let waited = 0;
    const run: VerifiedRun = {
      todos,
      turn: 7,
      toolsReady: async () => {
        waited++;
      },
      nudge: (kind, text) => {
        nudges.push({ kind, text });
        return { type: 'text', text };
      },
      emit: (event) => events.push(event),
    };
    return { run, todos, events, nudges, waited: () => waited };
  }

  it('completes the run when the command passes, once the tools are ready, telling the round', async () => {
    const { run, todos, events, nudges, waited } = completedRun();
    const reply = await gate('true').check(run, false);
    expect(reply).toEqual({
      end: 'completed',
      reason: expect.stringContaining('verify_command `true` passed'),
    });
    expect(waited()).toBe(1);
    expect(events).toEqual([{ type: 'verify', turn: 7, report: expect.objectContaining({ passed: true }) }]);
    expect(nudges).toEqual([]);
    expect(todos.items).toHaveLength(1);
  });

  it('sends a failure back with the Fix item open, and ends incomplete after the last round', async () => {
    const { run, todos, nudges } = completedRun();
    const check = gate('echo broken; exit 3', 2);
    const reply = await check.check(run, false);
    expect(nudges.map((nudge) => nudge.kind)).toEqual(['verify_failed']);
    expect(reply).toEqual({ content: [{ type: 'text', text: nudges[0]!.text }] });
    expect(nudges[0]!.text).toContain('exit code 3');
    expect(nudges[0]!.text).toContain(`"${FIX_ITEM.text}" in progress`);
    expect(todos.items.at(-1)).toMatchObject({ text: FIX_ITEM.text, status: 'in_progress' });
    expect(await check.check(run, false)).toMatchObject({ end: 'incomplete' });
  });

  it('ends incomplete at once on its last chance (no turn left), rounds or not', async () => {
    const { run, nudges } = completedRun();
    expect(await gate('exit 1', 3).check(run, true)).toMatchObject({ end: 'incomplete' });
    expect(nudges).toEqual([]);
  });
});

describe('LastLook', () => {
  const list = (...paths: string[]): DeliveryList => ({ text: `files: ${paths.join(', ')}`, paths });

  it('shows a list again only when a file joined it', async () => {
    const lists = [list('a.ts'), list('a.ts'), list('a.ts', 'b.ts'), list('b.ts')];
    const look = new LastLook(async () => lists.shift());
    expect(await look.take()).toBe('files: a.ts');
    expect(await look.take()).toBeUndefined();
    expect(await look.take()).toBe('files: a.ts, b.ts');
    expect(await look.take()).toBeUndefined();
  });

  it('asks once before completing, never on the last chance, and not at all when nothing changed', async () => {
    const lists = [list('a.ts'), list('a.ts', 'b.ts'), list('a.ts', 'b.ts', 'c.ts')];
    const look = new LastLook(async () => lists.shift());
    expect(await look.beforeCompleting(true)).toBeUndefined();
    expect(lists).toHaveLength(3);
    expect(await look.beforeCompleting(false)).toBe('files: a.ts');
    expect(await look.beforeCompleting(false)).toBeUndefined();
    expect(await look.take()).toBe('files: a.ts, b.ts');
    expect(await new LastLook(undefined).beforeCompleting(false)).toBeUndefined();
    expect(await new LastLook(async () => undefined).take()).toBeUndefined();
  });
});

describe('withFixItem', () => {
  const item = (id: string, status: TodoItem['status'], text = `item ${id}`): TodoItem => ({
    id,
    text,
    status,
  });

  it('adds the Fix item in progress with a fresh id, or reopens the one already there', () => {
    const items = [item('1', 'completed'), item('3', 'completed')];
    expect(withFixItem(items)).toEqual([...items, { id: '4', ...FIX_ITEM, status: 'in_progress' }]);
    const again = [item('1', 'completed'), item('2', 'completed', FIX_ITEM.text)];
    expect(withFixItem(again)).toEqual([
      item('1', 'completed'),
      { id: '2', ...FIX_ITEM, status: 'in_progress' },
    ]);
  });

  it('leaves a full list alone', () => {
    const full = Array.from({ length: MAX_TODOS }, (_, i) => item(String(i + 1), 'completed'));
    expect(withFixItem(full)).toBeUndefined();
  });
});

describe('failureMessage', () => {
  const report = verifyReport({ outputTail: 'FAIL src/a.test.ts\n```inner fence```\n' });

  it('names the command, the round, the exit code, and fences the output so it cannot break out', () => {
    const message = failureMessage(report, 600, true);
    expect(message).toContain('`npm test`');
    expect(message).toContain('(round 1 of 3)');
    expect(message).toContain('failed: exit code 1.');
    expect(message).toContain('````\nFAIL src/a.test.ts\n```inner fence```\n\n````');
    expect(message).toContain(`"${FIX_ITEM.text}" in progress`);
    expect(failureMessage({ ...report, timedOut: true, exitCode: null }, 600, false)).toContain(
      'timed out after 600 s',
    );
  });

  it("does not assume the failure is the model's: how to tell, and the honest way out if it is not", () => {
    for (const listed of [true, false]) {
      const message = failureMessage(report, 600, listed);
      expect(message).toContain('If your change caused the failure, fix');
      expect(message).toContain('(`git stash`, run the command, `git stash pop`)');
      expect(message).toContain('add an item "Blocked: verify_command fails without this change too');
      expect(message).toContain('do not delete or complete an item to get past it');
    }
  });
});
