import { describe, expect, it } from 'vitest';
import type { TodoItem } from '../../src/agent/todo/todos.js';
import { renderPanel } from '../../src/terminal/panel.js';
import { screen } from '../../src/terminal/screen.js';
import { foreignControls } from '../support/terminal.js';

const ITEMS: TodoItem[] = [
  { id: '1', text: 'Read hello.py', status: 'completed' },
  { id: '2', text: 'Add docstrings', status: 'in_progress', activeForm: 'Adding docstrings' },
  { id: '3', text: 'Add a main guard', status: 'pending' },
];

/** The panel as a screen prints it. */
function shown(items: readonly TodoItem[], color: boolean, title?: string): string {
  let out = '';
  screen((text) => (out += text), color).print(...renderPanel(items, title));
  return out;
}

describe('renderPanel', () => {
  it('renders a plain panel with a count, icons and the activeForm', () => {
    expect(shown(ITEMS, false)).toBe(
      ['Todos · 1/3 done', '  ✔ Read hello.py', '  ▶ Adding docstrings', '  ○ Add a main guard'].join('\n'),
    );
  });

  it('uses the title and falls back to the text when there is no activeForm', () => {
    const items: TodoItem[] = [{ id: '1', text: 'Run tests', status: 'in_progress' }];
    expect(shown(items, false, 'Plan')).toBe('Plan · 0/1 done\n  ▶ Run tests');
  });

  it('says so when the list is empty', () => {
    expect(shown([], false)).toBe('Todos · 0/0 done\n  (no todos yet)');
  });

  it('keeps each item on one line; an escape sequence in one shows as text, with colour or without', () => {
    const items: TodoItem[] = [
      { id: '1', text: 'red \u001b[31mtext\u001b[0m', status: 'completed' },
      { id: '2', text: 'x', status: 'in_progress', activeForm: 'clear \u001b[2J screen\u009b1m' },
      { id: '3', text: 'two\nlines\r\tand a bell\u0007', status: 'pending' },
    ];
    expect(shown(items, false, 'T\u001b[1m').split('\n')).toEqual([
      'T\\x1b[1m · 1/3 done',
      '  ✔ red \\x1b[31mtext\\x1b[0m',
      '  ▶ clear \\x1b[2J screen\\x9b1m',
      '  ○ two lines and a bell\\x07',
    ]);
    // With colour, the only escape sequences are the panel's own styles.
    const coloured = shown(items, true);
    expect(foreignControls(coloured)).toEqual([]);
  });

  it('colours by status when asked: dim done, bold cyan in progress, plain pending', () => {
    const lines = shown(ITEMS, true).split('\n');
    expect(lines[0]).toBe('\u001b[1mTodos · 1/3 done\u001b[22m');
    expect(lines[1]).toBe('  \u001b[2m✔ Read hello.py\u001b[22m');
    expect(lines[2]).toBe('  \u001b[1m\u001b[36m▶ Adding docstrings\u001b[39m\u001b[22m');
    expect(lines[3]).toBe('  ○ Add a main guard');
  });
});

describe("renderPanel with the task tool's helpers", () => {
  const helper = {
    session: 'helper-1',
    kind: 'explore' as const,
    description: 'Find the callers',
    under: '2',
    items: [
      { id: '1', text: 'Read parse.ts', status: 'completed' as const },
      { id: '2', text: 'Grep callers', status: 'in_progress' as const, activeForm: 'Grepping callers' },
    ],
  };
  const nested = (helpers: Parameters<typeof renderPanel>[2]) => {
    let out = '';
    screen((text) => (out += text), false).print(...renderPanel(ITEMS, 'Todos', helpers));
    return out;
  };

  it("nests a running helper's list under the item it was started from", () => {
    expect(nested([helper])).toBe(
      [
        'Todos · 1/3 done',
        '  ✔ Read hello.py',
        '  ▶ Adding docstrings',
        '    ↳ helper-1 (explore): Find the callers, 1/2 done',
        '      ✔ Read parse.ts',
        '      ▶ Grepping callers',
        '  ○ Add a main guard',
      ].join('\n'),
    );
  });

  it('folds it to one line once it ended', () => {
    expect(nested([{ ...helper, ended: 'completed' }])).toBe(
      [
        'Todos · 1/3 done',
        '  ✔ Read hello.py',
        '  ▶ Adding docstrings',
        '    ↳ helper-1 (explore): Find the callers · completed, 1/2 done',
        '  ○ Add a main guard',
      ].join('\n'),
    );
  });
});
