// What a helper is told and what its parent gets back: the role and limits in the task, and the answer with
// how the helper ended, cut to size on a character boundary.
import { describe, expect, it } from 'vitest';
import { helperAnswer, helperTask, MAX_ANSWER_CHARS } from '../../../src/agent/helpers/brief.js';
import { RESULT } from '../../support/delivery-fixture.js';

describe('helperTask', () => {
  it("gives each kind its role and the turn limit, then the parent's words last", () => {
    const explore = helperTask('explore', 'Find every caller of parse().', 12);
    expect(explore).toContain('You can only read');
    expect(explore).toContain('at most 12 turns');
    expect(explore.endsWith('The main agent asks:\n\nFind every caller of parse().')).toBe(true);
    const edit = helperTask('edit', 'Rename it.', 5);
    expect(edit).toContain('do not commit, push or switch branches');
    expect(edit).not.toContain('You can only read');
  });
});

describe('helperAnswer', () => {
  it('says how the helper ended, with its list in one line, then its answer', () => {
    expect(helperAnswer('Find callers', 'explore', RESULT, ' It was stopped.')).toBe(
      'Helper "Find callers" (explore) ended completed: every todo item is completed (3 turns, 4 tool calls, ' +
        '1 of 1 items done). It was stopped.\n\nIts answer:\nFixed index.js and added a workflow.',
    );
    const silent = helperAnswer('Look', 'edit', { ...RESULT, todos: [], lastText: '  ' });
    expect(silent).toContain('(3 turns, 4 tool calls).');
    expect(silent.endsWith('Its answer:\n(it gave no answer)')).toBe(true);
  });

  it('cuts a long answer by characters, never inside one, and says how much it cut', () => {
    const answer = '😀'.repeat(MAX_ANSWER_CHARS + 5);
    const shown = helperAnswer('Look', 'explore', { ...RESULT, lastText: answer });
    expect(shown).toContain(`${'😀'.repeat(MAX_ANSWER_CHARS)}\n[… 5 more characters of the answer cut]`);
    expect(shown).not.toContain('\uFFFD');
  });
});
