// The task tool: its input read as the schema says (trimmed, bounded, explore by default), each call handed
// to the starter with the run's abort signal, and its limits told to the model.
import { describe, expect, it } from 'vitest';
import { taskInput, taskTool, type TaskInput } from '../../../src/agent/helpers/task-tool.js';

describe('taskTool', () => {
  it('reads a call as the schema says, and refuses one without a title or a prompt', () => {
    expect(taskInput.parse({ description: '  Find callers ', prompt: ' Look in src/ ' })).toEqual({
      description: 'Find callers',
      prompt: 'Look in src/',
    });
    for (const bad of [
      { description: ' ', prompt: 'x' },
      { description: 'x', prompt: '' },
      { description: 'x'.repeat(81), prompt: 'x' },
      { description: 'x', prompt: 'x', kind: 'write' },
    ])
      expect(taskInput.safeParse(bad).success, JSON.stringify(bad)).toBe(false);
  });

  it("hands each call to the starter with the run's signal, and answers with what it answers", async () => {
    const started: Array<[TaskInput, AbortSignal | undefined]> = [];
    const tool = taskTool(
      async (input, signal) => {
        started.push([input, signal]);
        return { text: `done: ${input.description}` };
      },
      { maxParallel: 3, maxTurns: 40 },
    );
    const signal = new AbortController().signal;
    const input = { description: 'Find callers', prompt: 'Look', kind: 'explore' as const };
    expect(await tool.run(input, { workspace: '/w', bashTimeoutSeconds: 1, env: {}, signal })).toEqual({
      text: 'done: Find callers',
    });
    expect(started).toEqual([[input, signal]]);
    expect(tool.name).toBe('task');
    expect(tool.description).toContain('at most 3 at once');
    expect(tool.description).toContain('at most 40 turns');
  });
});
