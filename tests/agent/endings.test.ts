import { describe, expect, it } from 'vitest';
import { blockedEnding } from '../../src/agent/endings.js';
import { validateTodos } from '../../src/agent/todo/todos.js';

describe('why a run ends', () => {
  it('a stop at "Blocked:" items is incomplete and names every blocker, a done one aside', () => {
    const items = validateTodos([
      { text: 'Add the endpoint', status: 'completed' },
      { text: 'blocked: npm test fails on main too', status: 'pending' },
      { text: 'Blocked: no database here', status: 'in_progress' },
      { text: 'Blocked: an old one, since solved', status: 'completed' },
    ]);
    expect(blockedEnding(items)).toEqual({
      end: 'incomplete',
      reason: 'the model stopped at a blocker: npm test fails on main too; no database here',
    });
    expect(blockedEnding(validateTodos([{ text: 'Unblock the build' }]))).toBeUndefined();
  });
});
