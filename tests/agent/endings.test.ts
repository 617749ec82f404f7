import { describe, expect, it } from 'vitest';
import { blockedEnding } from '../../src/agent/endings.js';
import { validateTodos } from '../../src/agent/todo/todos.js';
import { todoItems } from '../support/todo-items.js';

describe('why a run ends', () => {
  it('a stop at "Blocked:" items is incomplete and names every blocker, a done one aside', () => {
    const items = todoItems(
      '[x] Add the endpoint',
      '[ ] blocked: npm test fails on main too',
      '[~] Blocked: no database here',
      '[x] Blocked: an old one, since solved',
    );
    expect(blockedEnding(items)).toEqual({
      end: 'incomplete',
      reason: 'the model stopped at a blocker: npm test fails on main too; no database here',
    });
    expect(blockedEnding(validateTodos([{ text: 'Unblock the build' }]))).toBeUndefined();
  });
});
