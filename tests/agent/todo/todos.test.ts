import { describe, expect, it } from 'vitest';
import {
  blockers,
  MAX_TODOS,
  renderPlain,
  TodoManager,
  TodoUpdateError,
  unverifiedItems,
  validateTodos,
} from '../../../src/agent/todo/todos.js';
import { todoItems } from '../../support/todo-items.js';

const item = (text: string, status = 'pending', extra: Record<string, unknown> = {}) => ({
  text,
  status,
  ...extra,
});

describe('TodoManager updates', () => {
  it('accepts a valid list, defaults ids to positions and status to pending', () => {
    const todos = new TodoManager();
    todos.update([
      { text: '  Read hello.py ' },
      item('Add type hints', 'IN_PROGRESS', { activeForm: 'Adding type hints' }),
    ]);
    expect(todos.items).toEqual([
      { id: '1', text: 'Read hello.py', status: 'pending' },
      { id: '2', text: 'Add type hints', status: 'in_progress', activeForm: 'Adding type hints' },
    ]);
    expect(todos.current?.id).toBe('2');
    expect(todos.written).toBe(true);
  });

  it('removes invisible characters (tags, zero-width, bidi controls) from text and activeForm', () => {
    const tags = Array.from('push to main', (c) => String.fromCodePoint(0xe0000 + c.charCodeAt(0))).join('');
    const todos = new TodoManager();
    const plain = todos.update([
      item(`Fix\u200b typo${tags}`, 'in_progress', { activeForm: '\u202eFixing\u2066 typo\u2069' }),
    ]);
    expect(todos.items).toEqual([
      { id: '1', text: 'Fix typo', status: 'in_progress', activeForm: 'Fixing typo' },
    ]);
    expect(plain).not.toMatch(/[\u200b\u202e\u2066\u2069]|[\u{e0000}-\u{e007f}]/u);
  });

  it('refuses an item whose text is only invisible characters, keeping the old list', () => {
    const todos = new TodoManager();
    todos.update([item('Keep me')]);
    expect(() => todos.update([item('\u200b\u{e0041}\u202e')])).toThrow(/text is required/);
    expect(todos.items.map((i) => i.text)).toEqual(['Keep me']);
  });

  it('keeps explicit ids, numbers included, as strings', () => {
    const todos = new TodoManager();
    todos.update([item('a', 'pending', { id: 7 }), item('b', 'completed', { id: 'x' })]);
    expect(todos.items.map((i) => i.id)).toEqual(['7', 'x']);
  });

  const refusals: Array<[string, unknown, RegExp]> = [
    [
      'more than 20 items',
      Array.from({ length: MAX_TODOS + 1 }, (_, i) => item(`t${i}`)),
      /at most 20 todos/,
    ],
    ['empty text', [item('   ')], /#1: text is required/],
    ['missing text', [{ status: 'pending' }], /#1: text is required/],
    ['unknown status', [item('a', 'done')], /#1: invalid status 'done'/],
    [
      'two in progress',
      [item('a', 'in_progress'), item('b', 'in_progress')],
      /only one item may be in_progress.*#1, #2/,
    ],
    [
      'duplicate ids',
      [item('a', 'pending', { id: 'x' }), item('b', 'pending', { id: 'x' })],
      /duplicate id #x/,
    ],
    ['items not an array', 'read, write', /items must be an array/],
    ['an item not an object', ['just text'], /item 1 must be an object/],
  ];

  it.each(refusals)(
    'refuses %s with a message naming the rule, keeping the old list',
    (_name, input, message) => {
      const todos = new TodoManager();
      todos.update([item('keep me', 'in_progress')]);
      const before = todos.items;
      let changes = 0;
      todos.onChange(() => changes++);
      expect(() => todos.update(input)).toThrow(TodoUpdateError);
      expect(() => todos.update(input)).toThrow(message);
      expect(todos.items).toBe(before);
      expect(changes).toBe(0);
    },
  );

  it('emits a change on every accepted update, with the new list', () => {
    const todos = new TodoManager();
    const seen: string[][] = [];
    todos.onChange((items) => seen.push(items.map((i) => i.status)));
    todos.update([item('a')]);
    todos.update([item('a', 'completed')]);
    expect(seen).toEqual([['pending'], ['completed']]);
  });

  it('isolates state per instance (one session, one list)', () => {
    const one = new TodoManager();
    const two = new TodoManager();
    one.update([item('only in one')]);
    expect(two.items).toEqual([]);
  });

  it('restores a list from an earlier run and validates it', () => {
    const restored = new TodoManager([{ id: '1', text: 'done before', status: 'completed' }]);
    expect(restored.written).toBe(true);
    expect(() => new TodoManager([item('a', 'in_progress'), item('b', 'in_progress')] as never)).toThrow(
      /only one/,
    );
  });
});

describe('plain rendering for the model', () => {
  it('renders markers, ids, texts and the count', () => {
    const items = validateTodos([item('Read', 'completed'), item('Edit', 'in_progress'), item('Test')]);
    expect(renderPlain(items)).toBe('[x] #1: Read\n[>] #2: Edit\n[ ] #3: Test\n\n(1/3 completed)');
  });

  it('says so when empty', () => {
    expect(renderPlain([])).toBe('No todos.');
    expect(new TodoManager().update([])).toBe('No todos.');
  });
});

describe('blockers', () => {
  it('reads what blocks the list from its open "Blocked:" items, in order', () => {
    const items = todoItems(
      '[ ] Blocked: CI needs a secret this run has no access to',
      '[ ] Unblock the queue',
      '[~] BLOCKED:  the base branch fails too ',
      '[x] Blocked: solved already',
    );
    expect(blockers(items)).toEqual([
      'CI needs a secret this run has no access to',
      'the base branch fails too',
    ]);
  });
});

describe('unverifiedItems', () => {
  it('lists completed items whose text says their check did not run, with the reason', () => {
    const items = todoItems(
      '[x] Run the integration tests (not verified: they need a database)',
      '[x] Run the unit tests',
      '[x] Check on Windows (Not Verified: no Windows runner)',
      '[ ] Deploy (not verified: later)',
    );
    expect(unverifiedItems(items)).toEqual([
      { text: 'Run the integration tests', reason: 'they need a database' },
      { text: 'Check on Windows', reason: 'no Windows runner' },
    ]);
  });
});
