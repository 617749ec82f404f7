import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { clearOldToolResults, dropOldTurns } from '../../../src/agent/context/clearing.js';
import { withoutThinking } from '../../../src/model/messages.js';
import type { AgentEvent } from '../../../src/agent/events.js';
import { runAgent } from '../../../src/agent/loop.js';
import { Model } from '../../../src/model/client.js';
import { type MessageParam } from '../../../src/model/messages.js';
import { LONG_RUN_FILE, longReadScript, longRunFileText } from '../../support/bench/scripts.js';
import {
  estimateInputTokens,
  MODE_MODEL_ID,
  MODEL_MODES,
  type ModelMode,
} from '../../support/anthropic/server.js';
import { useAgentWorkspace } from '../../support/agent-workspace.js';

const KEY = 'sk-ant-context-test-000000000000';
const ws = useAgentWorkspace('context-');

/** A long run of `turns` turns against the server in `mode`, every turn reading `file` characters. */
async function longRun(
  mode: ModelMode,
  options: { turns: number; budget?: number; fileChars: number; window?: number },
) {
  await writeFile(join(ws.dir, LONG_RUN_FILE), longRunFileText(options.fileChars));
  const server = await ws.serve(longReadScript(options.turns), {
    apiKey: KEY,
    mode,
    ...(options.window ? { contextWindow: options.window } : {}),
  });
  const events: AgentEvent[] = [];
  const result = await runAgent({
    task: 'Summarise the logs',
    model: new Model({ apiKey: KEY, baseURL: server.url, maxRetries: 0, model: MODE_MODEL_ID[mode] }),
    workspace: ws.dir,
    maxTurns: options.turns + 100,
    ...(options.budget ? { maxContextTokens: options.budget } : {}),
    observers: [(event) => events.push(event)],
  });
  const sizes = server.requests.map((r) => estimateInputTokens(r.body));
  const clearings = events.filter((e) => e.type === 'nudge' && e.kind === 'context_cleared');
  return { result, sizes, clearings, requests: server.requests, violations: server.violations };
}

describe.each(MODEL_MODES)('long runs inside the context budget (%s)', (mode) => {
  it('runs 300+ turns under a 40k-token budget, clearing old tool results and keeping the list', async () => {
    const window = 40_000;
    const run = await longRun(mode, { turns: 301, budget: window, window, fileChars: 9_600 });
    expect(run.violations).toEqual([]);
    expect(run.result.status).toBe('completed');
    expect(run.result.turns).toBe(302);
    expect(Math.max(...run.sizes)).toBeLessThan(window);
    // Without clearing, 300 reads of a ~2,500-token file would have passed the window twenty times over.
    expect(run.clearings.length).toBeGreaterThan(5);
    // Stubs alone would fill the window in a run this long: the oldest turns go too, so clearing stays
    // occasional and the history stays bounded.
    expect(run.clearings.length).toBeLessThan(60);
    expect(JSON.stringify(run.clearings)).toMatch(/the \d+ oldest turns removed/);
    expect(run.requests.at(-1)!.body.messages.length).toBeLessThan(300);
    // Every request still carries the current todo list, however much was cleared before it.
    for (const request of run.requests.slice(2)) {
      expect(JSON.stringify(request.body.messages)).toMatch(/\[[>x ]\] #1: Survey the logs/);
    }
    // And the first message, the task, is never cleared.
    expect(JSON.stringify(run.requests.at(-1)!.body.messages[0])).toContain('Summarise the logs');
  });
});

// 300 real HTTP turns each: a few seconds on an idle machine, so the limit is for a busy one, not a measure.
describe('issue 9 measures: a 300-turn run on claude-sonnet-5-5', { timeout: 180_000 }, () => {
  it('held to max_context_tokens 200000: completes, no request over the budget, no 400', async () => {
    const run = await longRun('sonnet-5-5', { turns: 300, budget: 200_000, fileChars: 10_000 });
    expect(run.violations).toEqual([]);
    expect(run.result.status).toBe('completed');
    expect(Math.max(...run.sizes)).toBeLessThanOrEqual(200_000);
    expect(run.clearings.length).toBeGreaterThan(2);
    // Thinking is kept between clearings: only the turns a clearing rewrote lose theirs.
    const last = run.requests.at(-1)!.body.messages as { role: string; content: { type: string }[] }[];
    expect(last.at(-2)!.content[0]!.type).toBe('thinking');
  });

  it('with the default budget (the model window, 1M): completes, no request over it, no 400', async () => {
    const run = await longRun('sonnet-5-5', { turns: 300, fileChars: 12_000 });
    expect(run.violations).toEqual([]);
    expect(run.result.status).toBe('completed');
    expect(Math.max(...run.sizes)).toBeLessThanOrEqual(1_000_000);
    expect(run.clearings.length).toBeGreaterThanOrEqual(1);
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

describe('withoutThinking', () => {
  it('takes thinking out of assistant turns, leaving a stub where nothing else was, and keeps other turns as they are', () => {
    const user: MessageParam = { role: 'user', content: 'go' };
    const messages: MessageParam[] = [
      user,
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: '', signature: 's1' },
          { type: 'tool_use', id: 't1', name: 'bash', input: {} },
        ],
      },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'ok' }] },
      { role: 'assistant', content: [{ type: 'redacted_thinking', data: 'x' }] },
    ];
    const out = withoutThinking(messages);
    expect(out[0]).toBe(user);
    expect(out[2]).toBe(messages[2]);
    expect(out[1]!.content).toEqual([{ type: 'tool_use', id: 't1', name: 'bash', input: {} }]);
    expect(out[3]!.content).toEqual([{ type: 'text', text: '[earlier reasoning cleared]' }]);
  });
});
