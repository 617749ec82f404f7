// A maintainer's edits waiting for the agent loop: shown on top of the agent's newest list until taken, then
// handed over once, each as an inbox entry applied to the list the loop holds at that moment.
import { describe, expect, it } from 'vitest';
import type { TodoItem } from '../../../src/agent/todo/todos.js';
import { PendingEdits } from '../../../src/github/checklist/pending-edits.js';

const item = (id: string, text: string, status: TodoItem['status'] = 'pending'): TodoItem => ({
  id,
  text,
  status,
});
const list = [item('1', 'Read the code', 'in_progress'), item('2', 'Write the fix')];

describe('PendingEdits', () => {
  it('shows the edits on top of the newest list the agent reported', () => {
    const pending = new PendingEdits(list);
    expect(pending.shown()).toEqual(list);
    pending.add([{ kind: 'ticked', id: '2' }]);
    pending.add([{ kind: 'added', text: 'Add a test', done: false, after: '2' }]);
    expect(pending.shown().map((i) => [i.id, i.text, i.status])).toEqual([
      ['1', 'Read the code', 'in_progress'],
      ['2', 'Write the fix', 'completed'],
      ['3', 'Add a test', 'pending'],
    ]);
    // A newer list from the agent is the base from then on, with the edits still on top.
    const newer = [item('1', 'Read the code', 'completed'), item('2', 'Write the fix', 'in_progress')];
    expect(pending.shown(newer).map((i) => i.status)).toEqual(['completed', 'completed', 'pending']);
    expect(pending.shown().map((i) => i.status)).toEqual(['completed', 'completed', 'pending']);
  });

  it('shows nothing of an edit that breaks a list rule, and keeps the rest', () => {
    const pending = new PendingEdits(list);
    pending.add([{ kind: 'reworded', id: '1', text: '   ' }]);
    pending.add([{ kind: 'deleted', id: '2', text: 'Write the fix' }]);
    expect(pending.shown()).toEqual([list[0]]);
  });

  it('hands each batch over once, applied to the list the loop holds when it takes it', () => {
    const pending = new PendingEdits(list);
    pending.add([{ kind: 'reworded', id: '2', text: 'Write the smaller fix' }]);
    const [entry, ...more] = pending.take();
    expect(more).toEqual([]);
    expect(pending.take()).toEqual([]);
    expect(pending.shown()).toEqual(list);
    const current = [...list, item('3', 'Run the tests')];
    const taken = entry!(current);
    expect(taken.items?.map((i) => i.text)).toEqual([
      'Read the code',
      'Write the smaller fix',
      'Run the tests',
    ]);
    expect(taken.text).toContain('reworded #2: "Write the smaller fix"');
  });

  it('tells the model, and changes nothing, when a taken edit cannot be applied', () => {
    const pending = new PendingEdits(list);
    pending.add([{ kind: 'reworded', id: '1', text: '' }]);
    const taken = pending.take()[0]!(list);
    expect(taken.items).toBeUndefined();
    expect(taken.text).toMatch(
      /^The maintainer edited the checklist comment, but the edit could not be applied \(.*text is required.*\), so your list stays as it was\.$/,
    );
  });
});
