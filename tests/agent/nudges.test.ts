import { describe, expect, it } from 'vitest';
import { CONTINUE_AFTER_CUT_OFF, contextNote, openItemsNudge } from '../../src/agent/nudges.js';
import { todoItems } from '../support/todo-items.js';

const items = todoItems('[x] Fix the parser', '[~] Run the tests');

describe('what the loop tells the model', () => {
  it('the open-items note is tagged, and gives an honest way out for an item that cannot be done', () => {
    const note = openItemsNudge(items, true);
    expect(note.startsWith('<open-items>You stopped, but the todo list still has 1 of 2 items open')).toBe(
      true,
    );
    expect(note.endsWith('</open-items>')).toBe(true);
    expect(note).toContain('[>] #2: Run the tests');
    expect(note).toContain(
      'leave it open, add an item "Blocked: what stops it" and finish with your summary',
    );
    expect(note).toContain('never delete or complete an item the task needs');
    expect(openItemsNudge([], false)).toBe(
      '<open-items>You stopped without a plan. Call todo with your plan, then work through it.</open-items>',
    );
  });

  it('the cut-off note asks again for what did not arrive, in today’s words', () => {
    expect(CONTINUE_AFTER_CUT_OFF).not.toMatch(/exactly where/i);
    expect(CONTINUE_AFTER_CUT_OFF).toContain('the end of it was not received');
    expect(CONTINUE_AFTER_CUT_OFF).toContain('more briefly or in several parts');
  });

  it('the context note says what went, where the changes are, and to read a file again before editing', () => {
    const note = contextNote(2, items);
    expect(note).toMatch(/^<context-note>Older tool results were cleared and the 2 oldest turns removed/);
    expect(note).toContain('and your earlier reasoning with them');
    expect(note).toContain('`git diff` shows the changes made so far; read a file again before you edit it.');
    expect(note).toContain('[x] #1: Fix the parser');
  });
});
