// Properties of the TodoManager: any input is accepted or refused with a TodoUpdateError, and a refusal
// changes nothing; whatever is accepted keeps every rule of the list.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  MAX_TODOS,
  renderPlain,
  STATUSES,
  TodoManager,
  TodoUpdateError,
  validateTodos,
  type TodoItem,
} from '../../../src/agent/todo/todos.js';

/** Statuses as a model might send them: right, oddly cased or padded, wrong, or missing. */
const status = fc.oneof(
  fc.constantFrom(...STATUSES),
  fc.constantFrom('IN_PROGRESS', ' completed ', 'Pending', 'done', 'in progress', ''),
  fc.string({ maxLength: 12 }),
  fc.constantFrom(undefined, null, 1, true),
);

/** Items as a careful model writes them: text, a sensible status, sometimes an activeForm, no id. */
const goodItem = fc.record(
  {
    text: fc.string({ minLength: 1, maxLength: 40 }).filter((t) => t.trim() !== ''),
    status: fc.constantFrom('pending', 'completed', 'pending', 'completed', 'in_progress'),
    activeForm: fc.string({ maxLength: 20 }),
  },
  { requiredKeys: ['text', 'status'] },
);

/** Items as a careless one might: every field can be missing, blank or of a wrong type. */
const messyItem = fc.record(
  {
    id: fc.oneof(
      fc.constantFrom('1', '2', '3', 'a', ' 1 ', '', '  '),
      fc.integer({ min: -2, max: 30 }),
      fc.constantFrom(undefined, null),
    ),
    text: fc.oneof(fc.string({ maxLength: 40 }), fc.constantFrom('', '   ', 'Run the tests'), fc.integer()),
    status,
    activeForm: fc.oneof(fc.string({ maxLength: 20 }), fc.constantFrom(undefined, 7, '  ')),
  },
  { requiredKeys: [] },
);

const item = fc.oneof({ weight: 6, arbitrary: goodItem }, { weight: 1, arbitrary: messyItem });

/** Whole inputs: mostly short lists, some past the limit, sometimes anything at all. */
const input = fc.oneof(
  { weight: 8, arbitrary: fc.array(item, { maxLength: 8 }) },
  { weight: 1, arbitrary: fc.array(item, { maxLength: MAX_TODOS + 3 }) },
  { weight: 1, arbitrary: fc.array(fc.anything(), { maxLength: 5 }) },
  { weight: 1, arbitrary: fc.anything() },
);

function attempt(todos: TodoManager, value: unknown): { ok: true; rendered: string } | { ok: false } {
  try {
    return { ok: true, rendered: todos.update(value) };
  } catch (error) {
    // Any other error type would be a bug: the tool must always be able to tell the model what is wrong.
    expect(error).toBeInstanceOf(TodoUpdateError);
    expect((error as Error).message.length).toBeGreaterThan(0);
    return { ok: false };
  }
}

function expectWellFormed(items: readonly TodoItem[]): void {
  expect(items.length).toBeLessThanOrEqual(MAX_TODOS);
  expect(new Set(items.map((i) => i.id)).size).toBe(items.length);
  expect(items.filter((i) => i.status === 'in_progress').length).toBeLessThanOrEqual(1);
  for (const i of items) {
    expect(i.id).not.toBe('');
    expect(i.id).toBe(i.id.trim());
    expect(i.text).not.toBe('');
    expect(i.text).toBe(i.text.trim());
    expect(STATUSES).toContain(i.status);
    if (i.activeForm !== undefined) expect(i.activeForm.trim()).toBe(i.activeForm);
    if (i.activeForm !== undefined) expect(i.activeForm).not.toBe('');
  }
}

describe('TodoManager properties', () => {
  it('accepts or refuses any input with a TodoUpdateError; a refusal leaves the list and listeners untouched', () => {
    fc.assert(
      fc.property(fc.array(input, { minLength: 1, maxLength: 6 }), (inputs) => {
        const todos = new TodoManager();
        const heard: Array<readonly TodoItem[]> = [];
        todos.onChange((items) => heard.push(items));
        let accepted = 0;
        for (const value of inputs) {
          const before = todos.items;
          const writtenBefore = todos.written;
          const outcome = attempt(todos, value);
          if (outcome.ok) {
            accepted++;
            expect(todos.items).toEqual(validateTodos(value));
            expect(outcome.rendered).toBe(renderPlain(todos.items));
            expect(todos.written).toBe(true);
            expect(heard.at(-1)).toBe(todos.items);
          } else {
            expect(todos.items).toBe(before);
            expect(todos.written).toBe(writtenBefore);
          }
          expect(heard).toHaveLength(accepted);
          expectWellFormed(todos.items);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('keeps an accepted list frozen, so no one can change it behind the manager', () => {
    fc.assert(
      fc.property(fc.array(item, { maxLength: 8 }), (value) => {
        const todos = new TodoManager();
        if (!attempt(todos, value).ok) return;
        expect(Object.isFrozen(todos.items)).toBe(true);
      }),
    );
  });

  it('takes back what it accepted unchanged: resubmitting or restoring the list is a no-op', () => {
    fc.assert(
      fc.property(input, (value) => {
        let first: TodoItem[];
        try {
          first = validateTodos(value);
        } catch {
          return;
        }
        expect(validateTodos(structuredClone(first))).toEqual(first);
        expect(new TodoManager(first).items).toEqual(first);
      }),
    );
  });

  it('renders one line per item and the count', () => {
    fc.assert(
      fc.property(fc.array(item, { maxLength: 8 }), (value) => {
        const todos = new TodoManager();
        if (!attempt(todos, value).ok) return;
        const lines = todos.render().split('\n');
        if (todos.items.length === 0) {
          expect(lines).toEqual(['No todos.']);
          return;
        }
        const done = todos.items.filter((i) => i.status === 'completed').length;
        expect(lines.at(-1)).toBe(`(${done}/${todos.items.length} completed)`);
        expect(lines.filter((line) => /^\[[ >x]\] #/.test(line)).length).toBeGreaterThanOrEqual(
          todos.items.length,
        );
      }),
    );
  });

  it('refuses every list longer than the limit, whatever its items', () => {
    fc.assert(
      fc.property(fc.array(item, { minLength: MAX_TODOS + 1, maxLength: MAX_TODOS + 10 }), (value) => {
        const todos = new TodoManager();
        expect(attempt(todos, value).ok).toBe(false);
        expect(todos.items).toEqual([]);
      }),
    );
  });
});
