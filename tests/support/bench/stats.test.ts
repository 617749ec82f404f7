import { describe, expect, it } from 'vitest';
import { acceptedTodoUpdates } from './action.js';
import { renderTable } from './report.js';
import { loopScript, workScript } from './scripts.js';
import {
  linearFit,
  maxInWindow,
  median,
  minGap,
  prefixReuse,
  promptBlocks,
  sequentialRoundTrips,
} from './stats.js';
import type { ScriptedResponse } from '../anthropic/server.js';

const steps = (script: unknown[]) => script as ScriptedResponse[];
const toolNames = (script: ScriptedResponse[]) =>
  script.flatMap((step) => (step.content ?? []).flatMap((b) => (b.type === 'tool_use' ? [b.name] : [])));

describe('median', () => {
  it('takes the middle value, or the mean of the two middle values', () => {
    expect(median([5, 1, 3])).toBe(3);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(() => median([])).toThrow(RangeError);
  });
});

describe('linearFit', () => {
  it('finds the line through exact points and the least-squares line through noisy ones', () => {
    expect(linearFit([0, 1, 2, 3], [1, 3, 5, 7])).toEqual({ intercept: 1, slope: 2 });
    const fit = linearFit([0, 1, 2, 3], [0, 2, 1, 3]);
    expect(fit.slope).toBeCloseTo(0.8);
    expect(fit.intercept).toBeCloseTo(0.3);
    expect(() => linearFit([1, 1], [2, 3])).toThrow(RangeError);
  });
});

describe('sequentialRoundTrips', () => {
  it('counts the longest chain of requests each sent after the one before was answered', () => {
    const spans = [
      { at: 0, answeredAt: 10 },
      { at: 1, answeredAt: 12 }, // beside the first
      { at: 12, answeredAt: 20 }, // after both
      { at: 13, answeredAt: 30 }, // beside the third
      { at: 30, answeredAt: 40 },
    ];
    expect(sequentialRoundTrips(spans, 0, 40)).toBe(3);
    expect(sequentialRoundTrips(spans, 0, 29)).toBe(2);
    expect(sequentialRoundTrips(spans, 11, 40)).toBe(2);
    expect(sequentialRoundTrips([{ at: 5, answeredAt: 0 }], 0, 40)).toBe(0);
  });
});

describe('maxInWindow and minGap', () => {
  it('counts the most timestamps in any window that starts at one of them', () => {
    // 0, 900 and 9_999 fit in [0, 10_000); 10_000 starts a window of its own.
    expect(maxInWindow([10_000, 0, 900, 9_999, 25_000], 10_000)).toBe(3);
    expect(maxInWindow([], 10_000)).toBe(0);
  });

  it('finds the shortest gap between consecutive timestamps', () => {
    expect(minGap([3_000, 1_000, 1_045, 5_000])).toBe(45);
    expect(minGap([1_000])).toBeUndefined();
  });
});

describe('prefixReuse', () => {
  const tools = [{ name: 'todo', description: 'plan', input_schema: { type: 'object' } }];
  const system = [
    { type: 'text', text: 'You are a careful engineer.', cache_control: { type: 'ephemeral' } },
  ];
  const marked = (text: string) => ({ type: 'text', text, cache_control: { type: 'ephemeral' } });

  it('counts tokens up to the last marker that repeat the previous request, ignoring where markers sit', () => {
    const first = { tools, system, messages: [{ role: 'user', content: [marked('Do the task.')] }] };
    const second = {
      tools,
      system,
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'Do the task.' }] },
        { role: 'assistant', content: [{ type: 'text', text: 'On it.' }] },
        { role: 'user', content: [marked('Go on.')] },
      ],
    };
    const [tool, sys, task, answer, goOn] = promptBlocks(second).map((b) => b.tokens);
    const result = prefixReuse([first, second]);
    expect(result.total).toBe(
      promptBlocks(first).reduce((s, b) => s + b.tokens, 0) + tool! + sys! + task! + answer! + goOn!,
    );
    // The first request has nothing before it; the second reuses tools, system and the task message.
    expect(result.cacheable).toBe(tool! + sys! + task!);
    expect(result.share).toBeCloseTo(result.cacheable / result.total, 10);
  });

  it('reuses nothing past a changed block, nor past the last marker', () => {
    const request = (text: string, mark: boolean) => ({
      system: [{ type: 'text', text: 'System.' }],
      messages: [{ role: 'user', content: [mark ? marked(text) : { type: 'text', text }] }],
    });
    // Only the system block before the changed message repeats.
    const systemTokens = promptBlocks(request('a', true))[0]!.tokens;
    expect(systemTokens).toBeGreaterThan(0);
    expect(prefixReuse([request('a', true), request('b', true)]).cacheable).toBe(systemTokens);
    // Identical requests without any marker: nothing is cacheable.
    expect(prefixReuse([request('a', false), request('a', false)]).cacheable).toBe(0);
  });
});

describe('bench scripts', () => {
  it('loopScript has exactly the turns asked for, with only todo and read_file calls', () => {
    for (const turns of [3, 10, 300]) {
      const script = steps(loopScript(turns));
      expect(script).toHaveLength(turns);
      expect(new Set(toolNames(script))).toEqual(new Set(['todo', ...(turns > 3 ? ['read_file'] : [])]));
    }
    expect(() => loopScript(2)).toThrow(RangeError);
  });

  it('workScript has the turns asked for and items + 1 todo updates, the last completing every item', () => {
    const script = steps(workScript({ items: 10, turns: 40 }));
    expect(script).toHaveLength(40);
    const names = toolNames(script);
    expect(names.filter((n) => n === 'todo')).toHaveLength(11);
    expect(names.filter((n) => n !== 'todo')).toHaveLength(28);
    const lastPlan = script.findLast(
      (s) => s.content?.[0]?.type === 'tool_use' && s.content[0].name === 'todo',
    );
    const items = (lastPlan!.content![0] as { input: { items: { status: string }[] } }).input.items;
    expect(items.map((i) => i.status)).toEqual(Array(10).fill('completed'));
    expect(script.at(-1)!.stop_reason).toBe('end_turn');
  });
});

describe('acceptedTodoUpdates', () => {
  it('counts todo results without is_error, once each, across requests', () => {
    const history = (ok: boolean) => ({
      messages: [
        { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'todo', input: {} }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'ok' }] },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'b1', name: 'bash', input: {} }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'b1', content: 'ok' }] },
        { role: 'assistant', content: [{ type: 'tool_use', id: 't2', name: 'todo', input: {} }] },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 't2', content: 'x', ...(ok ? {} : { is_error: true }) },
          ],
        },
      ],
    });
    expect(acceptedTodoUpdates([history(false), history(false)])).toBe(1);
    expect(acceptedTodoUpdates([history(true)])).toBe(2);
  });
});

describe('renderTable', () => {
  it('pads every column to its widest cell and leaves the verdict empty for info rows', () => {
    const table = renderTable([
      { measure: 'a', value: '1 ms', target: '≤ 2 ms', verdict: 'pass' },
      { measure: 'longer name', value: '3', target: '—', verdict: 'info' },
    ]).split('\n');
    expect(table).toHaveLength(4);
    expect(table[0]!.indexOf('Median')).toBe(table[2]!.indexOf('1 ms'));
    expect(table[2]!.endsWith('pass')).toBe(true);
    expect(table[3]!.endsWith('—')).toBe(true);
  });
});
