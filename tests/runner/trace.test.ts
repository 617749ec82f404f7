// The start's trace: steps kept in one list shared by every copy of the module (each bundle has one), ordered
// by their start, printed as lines that the bench parses back to the same steps.
import { describe, expect, it } from 'vitest';
import { parseTrace, traced, traceLines, traceStep, traceSteps } from '../../src/runner/trace.js';

describe("the start's trace", () => {
  it('records a step when its work settles, rejected work too, and hands the work back unchanged', async () => {
    const before = traceSteps().length;
    const work = Promise.resolve(42);
    expect(await traced('answer read', work)).toBe(42);
    const failing = traced('refused read', Promise.reject(new Error('no')));
    await expect(failing).rejects.toThrow('no');
    await Promise.resolve(); // the record is made on the work's own settling
    const names = traceSteps()
      .slice(before)
      .map((step) => step.name);
    expect(names).toEqual(expect.arrayContaining(['answer read', 'refused read']));
  });

  it('keeps its steps on the global object, so a second copy of the module adds to the same list', async () => {
    const before = traceSteps().length;
    const holder = globalThis as { [key: symbol]: unknown };
    const list = holder[Symbol.for('todo-agent.trace')] as { name: string }[];
    list.push({ name: 'from another bundle', startMs: 0, endMs: 1 } as never);
    expect(traceSteps()).toHaveLength(before + 1);
    expect(traceSteps()[0]).toMatchObject({ startMs: 0 }); // ordered by start: the earliest first
  });

  it('prints one line a step that parseTrace reads back to the same steps', () => {
    traceStep('a moment', performance.now() - 5);
    const printed = traceLines();
    const parsed = parseTrace(`noise\n${printed.join('\n')}\nmore noise`);
    expect(parsed.map((step) => step.name)).toEqual(traceSteps().map((step) => step.name));
    const moment = parsed.find((step) => step.name === 'a moment')!;
    expect(moment.endMs - moment.startMs).toBeGreaterThanOrEqual(4.9);
  });
});
