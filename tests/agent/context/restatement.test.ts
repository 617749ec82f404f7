import { describe, expect, it } from 'vitest';
import { listAsItStands, restatement } from '../../../src/agent/context/restatement.js';
import type { TodoItem } from '../../../src/agent/todo/todos.js';
import { expectToContainAll } from '../../support/contains.js';

const ITEMS: TodoItem[] = [
  { id: '1', text: 'Read the parser', status: 'completed' },
  { id: '2', text: 'Fix the off-by-one', status: 'in_progress', activeForm: 'Fixing the off-by-one' },
  { id: '3', text: 'Add a test', status: 'pending' },
];

describe('restatement', () => {
  it('gives the list with every status and the item in progress by its activeForm', () => {
    const text = listAsItStands(ITEMS);
    expectToContainAll(text, [
      '[x] #1: Read the parser',
      '[>] #2: Fix the off-by-one',
      '[ ] #3: Add a test',
      '(1/3 completed)',
      'In progress: #2 (Fixing the off-by-one)',
    ]);
  });

  it('re-states the request, the list, the maintainer’s edits and the files, in that order', () => {
    const text = restatement({
      firstMessage: '<task>\nFix the parser\n</task>',
      items: ITEMS,
      maintainer: ['The maintainer added "#4: Update the docs".'],
      files: '- src/parser.ts (changed, +3 −1)',
    });
    const at = (part: string) => text.indexOf(part);
    expect(at('<original-request>\n<task>\nFix the parser')).toBeGreaterThan(0);
    expect(at('[>] #2: Fix the off-by-one')).toBeGreaterThan(at('<original-request>'));
    expect(at('- The maintainer added "#4: Update the docs".')).toBeGreaterThan(at('[>] #2'));
    expect(at('- src/parser.ts (changed, +3 −1)')).toBeGreaterThan(at('The maintainer added'));
  });

  it('says so when nothing was changed and the maintainer said nothing', () => {
    const text = restatement({ firstMessage: 'task', items: [], maintainer: [], files: undefined });
    expect(text).toContain('No todos.');
    expect(text).toContain('The maintainer has not edited the checklist during this run.');
    expect(text).toContain('No file has been changed so far.');
    // Where no delivery counts them (the CLI), the model is told where to look instead.
    const unknown = restatement({ firstMessage: 'task', items: [], maintainer: [], files: null });
    expect(unknown).toContain('`git status` and `git diff` show the files changed so far.');
    expect(unknown).not.toContain('No file has been changed');
  });
});
