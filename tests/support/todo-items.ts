// A todo list written as its checklist reads: `[x]` completed, `[~]` in progress, `[ ]` pending, then the text
// exactly as given (validateTodos trims it, as it does the model's).
import { validateTodos } from '../../src/agent/todo/todos.js';
import type { TodoItem, TodoStatus } from '../../src/agent/todo/todos.js';

const STATUS_OF: Record<string, TodoStatus> = { '[x]': 'completed', '[~]': 'in_progress', '[ ]': 'pending' };

/** The validated items, ids 1…n in order, one a line such as `[~] Run the tests`. */
export function todoItems(...lines: string[]): TodoItem[] {
  return validateTodos(
    lines.map((line) => {
      const status = STATUS_OF[line.slice(0, 3)];
      if (!status || line[3] !== ' ')
        throw new Error(`a todo line starts with [x], [~] or [ ] and a space: ${line}`);
      return { text: line.slice(4), status };
    }),
  );
}
