// The todo tool: the whole list replaced at each call and returned as the model reads it, or refused with the
// rule it breaks and the list kept.
import { describe, expect, it } from 'vitest';
import { TodoManager } from '../../../src/agent/todo/todos.js';
import { todoTool } from '../../../src/agent/tools/todo.js';
import type { ToolContext } from '../../../src/agent/tools/types.js';

const context: ToolContext = { workspace: '/nowhere', bashTimeoutSeconds: 1, env: {} };

describe('todoTool', () => {
  it('replaces the list and answers with it as it now stands', async () => {
    const todos = new TodoManager();
    const tool = todoTool(todos);
    const input = tool.parse!({
      items: [
        { text: 'Read the code', status: 'completed' },
        { text: 'Write the fix', status: 'in_progress', activeForm: 'Writing the fix' },
      ],
    });
    expect(await tool.run(input, context)).toBe(
      '[x] #1: Read the code\n[>] #2: Write the fix\n\n(1/2 completed)',
    );
    expect(todos.current?.activeForm).toBe('Writing the fix');
  });

  it("hands a malformed input to the list's own rules, which name what is wrong and keep the list", async () => {
    const todos = new TodoManager([{ id: '1', text: 'Keep me', status: 'pending' }]);
    const tool = todoTool(todos);
    await expect(tool.run(tool.parse!(null), context)).rejects.toThrow('items must be an array');
    await expect(
      tool.run(
        tool.parse!({
          items: [
            { text: 'a', status: 'in_progress' },
            { text: 'b', status: 'in_progress' },
          ],
        }),
        context,
      ),
    ).rejects.toThrow('only one item may be in_progress at a time');
    expect(todos.items.map((item) => item.text)).toEqual(['Keep me']);
  });

  it('tells the model the rules it is held to', () => {
    const { description, name } = todoTool(new TodoManager());
    expect(name).toBe('todo');
    expect(description).toContain('At most 20 items');
    expect(description).toContain('Exactly one item is in_progress');
  });
});
