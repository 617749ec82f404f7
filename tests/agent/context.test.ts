import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { clearOldToolResults, dropOldTurns } from '../../src/agent/context.js';
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
    // Stubs alone would fill the window in a run this long: the oldest turns go too, so clearing stays
    // occasional (it was on most turns before) and the history stays bounded.
    expect(clearings.length).toBeLessThan(100);
    expect(JSON.stringify(clearings)).toMatch(/the \d+ oldest turns removed/);
    expect(server.requests.at(-1)!.body.messages.length).toBeLessThan(300);
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

describe('dropOldTurns', () => {
  /** task, then `turns` tool turns of one call and one result each. */
  function history(turns: number): MessageParam[] {
    const messages: MessageParam[] = [{ role: 'user', content: 'the task' }];
    for (let i = 0; i < turns; i++) {
      messages.push({
        role: 'assistant',
        content: [{ type: 'tool_use', id: `t${i}`, name: 'read_file', input: { path: 'a' } }],
      });
      messages.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: `t${i}`, content: 'x' }] });
    }
    return messages;
  }
  // Every message counts 10 tokens, the system prompt and tools 5.
  const estimate = { fixedTokens: 5, tokensOf: () => 10 };

  it('drops the oldest whole turns after the task until the estimate fits, keeping pairs and the newest turns', () => {
    const messages = history(10); // 21 messages: 215 tokens
    expect(dropOldTurns(messages, estimate, 120)).toBe(5); // 215 − 5 × 20 = 115
    expect(messages).toHaveLength(11);
    expect(messages[0]).toEqual({ role: 'user', content: 'the task' });
    expect(messages.map((m) => m.role)).toEqual(['user', ...Array(5).fill(['assistant', 'user']).flat()]);
    // Every remaining tool_result answers the tool_use just before it.
    for (let i = 1; i < messages.length; i += 2) {
      const call = (messages[i]!.content as { id: string }[])[0]!.id;
      expect((messages[i + 1]!.content as { tool_use_id: string }[])[0]!.tool_use_id).toBe(call);
    }
    expect((messages[1]!.content as { id: string }[])[0]!.id).toBe('t5');
  });

  it('never touches the newest turns, even when they alone are over the target', () => {
    const messages = history(4);
    expect(dropOldTurns(messages, estimate, 0, 3)).toBe(1);
    expect(
      messages.map((m) => (m.role === 'assistant' ? (m.content as { id: string }[])[0]!.id : m.role)),
    ).toEqual(['user', 't1', 'user', 't2', 'user', 't3', 'user']);
  });

  it('does nothing when the conversation already fits, and stops at a turn that is not a pair', () => {
    const fits = history(3);
    expect(dropOldTurns(fits, estimate, 1000)).toBe(0);
    expect(fits).toHaveLength(7);
    // A paused reply leaves two assistant messages in a row: nothing from there on is removed.
    const paused = history(6);
    paused.splice(3, 0, { role: 'assistant', content: [{ type: 'text', text: 'pausing' }] });
    expect(dropOldTurns(paused, estimate, 0)).toBe(1);
    expect(paused[1]).toEqual({ role: 'assistant', content: [{ type: 'text', text: 'pausing' }] });
  });
});
