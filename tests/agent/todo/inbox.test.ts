import { describe, expect, it } from 'vitest';
import { MaintainerInbox } from '../../../src/agent/todo/inbox.js';
import { TodoManager, type TodoItem } from '../../../src/agent/todo/todos.js';
import type { InboxEntry } from '../../../src/agent/options.js';

const item = (id: string, text: string, status: TodoItem['status'] = 'pending'): TodoItem => ({
  id,
  text,
  status,
});

/** An inbox that hands out `batches`, one per drain, then nothing. */
function inboxOf(todos: TodoManager, ...batches: InboxEntry[][]) {
  return new MaintainerInbox(() => batches.shift() ?? [], todos);
}

describe('MaintainerInbox', () => {
  it('applies an entry’s list to the todos and returns its text, keeping the words in order', () => {
    const todos = new TodoManager([item('1', 'Read the code', 'in_progress')]);
    const seen: (readonly TodoItem[])[] = [];
    const inbox = inboxOf(
      todos,
      [
        (current) => {
          seen.push(current);
          return { items: [...current, item('2', 'Add a test')], text: 'Please add a test.' };
        },
        () => ({ text: 'And keep it short.' }),
      ],
      [() => ({ text: 'Thanks.' })],
    );
    expect(inbox.take()).toEqual(['Please add a test.', 'And keep it short.']);
    expect(seen).toEqual([[item('1', 'Read the code', 'in_progress')]]);
    expect(todos.items.map((entry) => entry.text)).toEqual(['Read the code', 'Add a test']);
    expect(inbox.take()).toEqual(['Thanks.']);
    expect(inbox.take()).toEqual([]);
    expect(inbox.words).toEqual(['Please add a test.', 'And keep it short.', 'Thanks.']);
  });

  it('reports a list the todos refuse, leaving the list as it was, and still keeps the word', () => {
    const before = [item('1', 'Read the code', 'in_progress')];
    const todos = new TodoManager(before);
    const inbox = inboxOf(todos, [
      () => ({
        items: [item('1', 'One', 'in_progress'), item('2', 'Two', 'in_progress')],
        text: 'Do both at once.',
      }),
    ]);
    const [note] = inbox.take();
    expect(note).toMatch(
      /^Do both at once\.\n\n\(The list could not take this change, so it stays as it was: /,
    );
    expect(note).toContain('only one item may be in_progress');
    expect(todos.items).toEqual(before);
    expect(inbox.words).toEqual(['Do both at once.']);
  });

  it('takes nothing when the run has no inbox', () => {
    const inbox = new MaintainerInbox(undefined, new TodoManager());
    expect(inbox.take()).toEqual([]);
    expect(inbox.words).toEqual([]);
  });
});
