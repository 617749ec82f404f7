import { describe, expect, it } from 'vitest';
import type { TodoItem } from '../../src/agent/todos.js';
import { renderPanel, shouldColor } from '../../src/terminal/panel.js';

const ITEMS: TodoItem[] = [
  { id: '1', text: 'Read hello.py', status: 'completed' },
  { id: '2', text: 'Add docstrings', status: 'in_progress', activeForm: 'Adding docstrings' },
  { id: '3', text: 'Add a main guard', status: 'pending' },
];

// eslint-disable-next-line no-control-regex
const ANY_ESCAPE = /[\u001b\u009b]/;

describe('renderPanel', () => {
  it('renders a plain panel with a count, icons and the activeForm', () => {
    expect(renderPanel(ITEMS, { color: false })).toBe(
      ['Todos · 1/3 done', '  ✔ Read hello.py', '  ▶ Adding docstrings', '  ○ Add a main guard'].join('\n'),
    );
  });

  it('uses the title and falls back to the text when there is no activeForm', () => {
    const items: TodoItem[] = [{ id: '1', text: 'Run tests', status: 'in_progress' }];
    expect(renderPanel(items, { color: false, title: 'Plan' })).toBe('Plan · 0/1 done\n  ▶ Run tests');
  });

  it('says so when the list is empty', () => {
    expect(renderPanel([], { color: false })).toBe('Todos · 0/0 done\n  (no todos yet)');
  });

  it('contains no escape codes at all without colour, even when item text carries some', () => {
    const items: TodoItem[] = [
      { id: '1', text: 'red \u001b[31mtext\u001b[0m', status: 'completed' },
      { id: '2', text: 'x', status: 'in_progress', activeForm: 'clear \u001b[2J screen\u009b1m' },
      { id: '3', text: 'two\nlines', status: 'pending' },
    ];
    const out = renderPanel(items, { color: false, title: 'T\u001b[1m' });
    expect(out).not.toMatch(ANY_ESCAPE);
    expect(out.split('\n')).toEqual([
      'T [1m · 1/3 done',
      '  ✔ red [31mtext [0m',
      '  ▶ clear [2J screen 1m',
      '  ○ two lines',
    ]);
  });

  it('colours by status when asked: dim done, bold cyan in progress, plain pending', () => {
    const lines = renderPanel(ITEMS, { color: true }).split('\n');
    expect(lines[0]).toBe('\u001b[1mTodos · 1/3 done\u001b[22m');
    expect(lines[1]).toBe('  \u001b[2m✔ Read hello.py\u001b[22m');
    expect(lines[2]).toBe('  \u001b[1m\u001b[36m▶ Adding docstrings\u001b[39m\u001b[22m');
    expect(lines[3]).toBe('  ○ Add a main guard');
  });
});

describe('shouldColor', () => {
  const tty = { isTTY: true };
  const pipe = { isTTY: false };

  it.each([
    ['a terminal', tty, {}, true],
    ['a pipe', pipe, {}, false],
    ['a terminal with NO_COLOR', tty, { NO_COLOR: '1' }, false],
    ['a terminal with an empty NO_COLOR', tty, { NO_COLOR: '' }, true],
    ['a dumb terminal', tty, { TERM: 'dumb' }, false],
    ['a pipe with FORCE_COLOR=1', pipe, { FORCE_COLOR: '1' }, true],
    ['a pipe with an empty FORCE_COLOR', pipe, { FORCE_COLOR: '' }, true],
    ['a terminal with FORCE_COLOR=0', tty, { FORCE_COLOR: '0' }, false],
    ['a terminal with FORCE_COLOR=false', tty, { FORCE_COLOR: 'false' }, false],
    ['FORCE_COLOR and NO_COLOR together', pipe, { FORCE_COLOR: '1', NO_COLOR: '1' }, true],
  ] as const)('%s', (_case, stream, env, expected) => {
    expect(shouldColor(stream, env)).toBe(expected);
  });
});
