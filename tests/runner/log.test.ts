// The run in the job log: one group per turn, holding what the terminal shows of it (its list, its tools) and the turn's tokens;
// a turn that ends without turn_end (a model error) is closed by the end event.
import { describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../src/agent/events.js';
import { logObserver } from '../../src/runner/log.js';
import { emptyUsage } from '../../src/model/usage.js';
import { RESULT } from '../support/delivery-fixture.js';
import { usePrinted } from '../support/printed.js';

const printed = usePrinted();
const usage = { ...emptyUsage(), input_tokens: 1500, output_tokens: 40 };
const turn = (n: number): AgentEvent[] => [
  { type: 'turn_start', turn: n },
  { type: 'todos', turn: n, items: [{ id: '1', text: `Step of turn ${n}`, status: 'in_progress' }] },
  { type: 'turn_end', turn: n, stopReason: 'end_turn', usage, total: usage, costUsd: 0 },
];

/** The log's group lines, in order: `start Turn 1`, `end`. */
const groups = (text: string) =>
  [...text.matchAll(/^::(group|endgroup)::(.*)$/gm)].map(([, kind, name]) =>
    kind === 'group' ? `start ${name}` : 'end',
  );

describe('logObserver', () => {
  it('puts each turn in its own group, with its tokens last', () => {
    const observe = logObserver();
    for (const event of [...turn(1), ...turn(2)]) observe(event);
    const log = printed();
    expect(groups(log)).toEqual(['start Turn 1', 'end', 'start Turn 2', 'end']);
    expect(log).toContain('Step of turn 2');
    expect(log).toContain('tokens: 1500 in, 40 out (stop: end_turn)');
    const second = log.slice(log.indexOf('::group::Turn 2'));
    expect(second.indexOf('Step of turn 2')).toBeLessThan(second.indexOf('tokens: 1500 in'));
  });

  it('closes a turn the model failed in at the end event, and opens no group of its own', () => {
    const observe = logObserver();
    observe({ type: 'turn_start', turn: 1 });
    observe({ type: 'end', result: { ...RESULT, status: 'failed', reason: 'the model failed' } });
    expect(groups(printed())).toEqual(['start Turn 1', 'end']);
  });
});
