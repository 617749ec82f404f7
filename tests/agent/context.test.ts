import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { clearOldToolResults } from '../../src/agent/context.js';
import type { AgentEvent } from '../../src/agent/events.js';
import { runAgent } from '../../src/agent/loop.js';
import { Model, type MessageParam } from '../../src/agent/model.js';
import { openWorkspace } from '../../src/agent/workspace.js';
import {
  estimateInputTokens,
  reply,
  startModelServer,
  text,
  toolUse,
  type ScriptStep,
  type ScriptedModelServer,
} from '../support/anthropic-server.js';

const KEY = 'sk-ant-context-test-000000000000';
let dir: string;
let server: ScriptedModelServer | undefined;
beforeEach(async () => {
  dir = await openWorkspace(await mkdtemp(join(tmpdir(), 'context-')));
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  await rm(dir, { recursive: true, force: true });
});

const items = (done: number) =>
  ['Survey the logs', 'Summarise them', 'Write the report'].map((t, i) => ({
    text: t,
    status: i < done ? 'completed' : i === done ? 'in_progress' : 'pending',
  }));

/** A long run: every turn reads a ~2,500-token file; the plan moves on every 100 turns. */
function longScript(turns: number): ScriptStep[] {
  const steps: ScriptStep[] = [reply(toolUse('todo', { items: items(0) }))];
  for (let turn = 2; turn < turns; turn++) {
    steps.push(
      turn % 100 === 0
        ? reply(toolUse('todo', { items: items(turn / 100) }))
        : reply(toolUse('read_file', { path: 'log.txt' })),
    );
  }
  steps.push(reply(toolUse('todo', { items: items(3) })), reply(text('Report written.')));
  return steps;
}

describe('long runs inside the context window', () => {
  it('runs 300+ turns under a 40k-token window, clearing old tool results and keeping the list', async () => {
    const window = 40_000;
    await writeFile(join(dir, 'log.txt'), 'log line with some words in it\n'.repeat(320));
    server = await startModelServer(longScript(301), { apiKey: KEY, contextWindow: window });
    const events: AgentEvent[] = [];
    const result = await runAgent({
      task: 'Summarise the logs',
      model: new Model({ apiKey: KEY, baseURL: server.url, maxRetries: 0 }),
      workspace: dir,
      maxTurns: 400,
      contextWindow: window,
      observers: [(event) => events.push(event)],
    });
    expect(server.violations).toEqual([]);
    expect(result.status).toBe('completed');
    expect(result.turns).toBe(302);
    const sizes = server.requests.map((r) => estimateInputTokens(r.body));
    expect(Math.max(...sizes)).toBeLessThan(window);
    // Without clearing, 300 reads of a ~2,500-token file would have passed the window twenty times over.
    const clearings = events.filter((e) => e.type === 'nudge' && e.kind === 'context_cleared');
    expect(clearings.length).toBeGreaterThan(5);
    // Every request still carries the current todo list, however much was cleared before it.
    for (const request of server.requests.slice(2)) {
      expect(JSON.stringify(request.body.messages)).toMatch(/\[[>x ]\] #1: Survey the logs/);
    }
    // And the first message, the task, is never cleared.
    expect(JSON.stringify(server.requests.at(-1)!.body.messages[0])).toContain('Summarise the logs');
  });
});

describe('clearOldToolResults', () => {
  it('stubs tool results and long tool inputs older than the recent turns, keeping every pair intact', () => {
    const long = 'x'.repeat(1000);
    const messages: MessageParam[] = [{ role: 'user', content: 'task' }];
    for (let i = 0; i < 5; i++) {
      messages.push({
        role: 'assistant',
        content: [{ type: 'tool_use', id: `t${i}`, name: 'write_file', input: { path: 'a', content: long } }],
      });
      messages.push({
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: `t${i}`, content: long }],
      });
    }
    const cleared = clearOldToolResults(messages, 2);
    // User turns: task, r0..r4; the last two (r3, r4) and their calls stay: t0..t2 and r0..r2 are cleared.
    expect(cleared).toBe(6);
    const json = JSON.stringify(messages);
    expect(json.split(long).length - 1).toBe(4); // t3, r3, t4, r4 untouched
    expect(messages.filter((m) => m.role === 'assistant')).toHaveLength(5);
    expect(clearOldToolResults(messages, 2)).toBe(0); // nothing left to clear
  });
});
