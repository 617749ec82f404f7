// The `todo` tool: the model's only way to change its plan. Validation and state live in TodoManager.
import { MAX_TODOS, todoInputSchema, type TodoManager } from '../todo/todos.js';
import type { Tool } from './types.js';

export function todoTool(todos: TodoManager): Tool<typeof todoInputSchema> {
  return {
    name: 'todo',
    description:
      'Replace your todo list (your plan and progress, shown live to the maintainer). Send the whole list every time. ' +
      `At most ${MAX_TODOS} items; each has text and a status: pending, in_progress or completed. Exactly one item is in_progress ` +
      'while you work on it, with activeForm saying what you are doing ("Running the tests"). Mark an item completed ' +
      'as soon as it is done, never while its tests fail. An item that cannot be done here stays open, and a new item ' +
      'names the blocker ("Blocked: the tests need a database"); never remove or complete an item the task needs. ' +
      'Returns the list as it now stands.',
    inputSchema: todoInputSchema,
    // The TodoManager names the broken rule better than a schema error would.
    parse: (raw) => ({ items: (raw as { items?: unknown } | null)?.items as never }),
    run: async (input) => todos.update(input.items),
  };
}
