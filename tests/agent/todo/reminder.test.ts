import { describe, expect, it } from 'vitest';
import { REMINDER_PREFIX, ReminderPolicy } from '../../../src/agent/todo/reminder.js';
import { validateTodos } from '../../../src/agent/todo/todos.js';

const open = validateTodos([{ text: 'a', status: 'in_progress' }, { text: 'b' }]);
const done = validateTodos([{ text: 'a', status: 'completed' }]);

function dueTurns(policy: ReminderPolicy, calls: boolean[], items = open): number[] {
  const due: number[] = [];
  calls.forEach((calledTodo, index) => {
    policy.recordTurn(calledTodo);
    if (policy.take(items)) due.push(index + 1);
  });
  return due;
}

describe('ReminderPolicy', () => {
  it('reminds after three turns without a todo call, then not again for three more', () => {
    expect(dueTurns(new ReminderPolicy(3), Array(10).fill(false))).toEqual([3, 6, 9]);
  });

  it('restarts the count when todo is called', () => {
    expect(dueTurns(new ReminderPolicy(3), [false, false, true, false, false, false])).toEqual([6]);
  });

  it('treats a list never written as not updated', () => {
    expect(dueTurns(new ReminderPolicy(3), [false, false, false], [])).toEqual([3]);
  });

  it('stays quiet while every item is completed', () => {
    expect(dueTurns(new ReminderPolicy(3), Array(6).fill(false), done)).toEqual([]);
  });

  it('honours another number of rounds', () => {
    expect(dueTurns(new ReminderPolicy(1), [false, true, false])).toEqual([1, 3]);
    expect(() => new ReminderPolicy(0)).toThrow(RangeError);
  });

  it('tells the model that a current list needs no todo call', () => {
    const policy = new ReminderPolicy(1);
    policy.recordTurn(false);
    expect(policy.take(open)).toContain('If the list is current, carry on without calling todo.');
  });

  it('starts with the reminder tag and carries the current list', () => {
    const policy = new ReminderPolicy(1);
    policy.recordTurn(false);
    const text = policy.take(open);
    expect(text?.startsWith(REMINDER_PREFIX)).toBe(true);
    expect(text).toContain('[>] #1: a\n[ ] #2: b');
  });
});
