// The todo list as a small indented panel for a terminal, painted by status (the screen colours it only when
// the terminal wants colour).
import type { TodoItem, TodoStatus } from '../agent/todo/todos.js';
import { countDone } from '../agent/todo/todos.js';
import { paint, type Span } from './screen.js';

const ICONS: Record<TodoStatus, string> = { pending: '○', in_progress: '▶', completed: '✔' };

/** The panel's lines, each after a line break but the first; a screen prints them. */
export function renderPanel(items: readonly TodoItem[], title = 'Todos'): Span[] {
  const lines: Span[][] = [[paint(`${oneLine(title)} · ${countDone(items)}/${items.length} done`, 'bold')]];
  if (items.length === 0) lines.push(['  ', paint('(no todos yet)', 'dim')]);
  for (const item of items) {
    const icon = ICONS[item.status];
    if (item.status === 'completed') lines.push(['  ', paint(`${icon} ${oneLine(item.text)}`, 'dim')]);
    else if (item.status === 'pending') lines.push([`  ${icon} ${oneLine(item.text)}`]);
    else lines.push(['  ', paint(`${icon} ${oneLine(item.activeForm || item.text)}`, 'bold', 'cyan')]);
  }
  return lines.flatMap((line, index) => (index === 0 ? line : ['\n', ...line]));
}

/** Model-written text on one line (the screen shows any control character in it as an escape). */
function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}
