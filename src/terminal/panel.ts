// The todo list as a small indented panel for a terminal, painted by status (the screen colours it only when
// the terminal wants colour); a helper's list nests under the item it was started from, one line once it
// ended.
import type { AgentStatus, HelperKind } from '../agent/events.js';
import type { TodoItem, TodoStatus } from '../agent/todo/todos.js';
import { countDone } from '../agent/todo/todos.js';
import { paint, type Span } from './screen.js';

const ICONS: Record<TodoStatus, string> = { pending: '○', in_progress: '▶', completed: '✔' };

/** A helper of the task tool as the panel shows it. */
export interface PanelHelper {
  session: string;
  kind: HelperKind;
  description: string;
  /** The id of the item it was started from. */
  under?: string;
  items: readonly TodoItem[];
  /** How it ended; absent while it runs. */
  ended?: AgentStatus;
}

/** The panel's lines, each after a line break but the first; a screen prints them. */
export function renderPanel(
  items: readonly TodoItem[],
  title = 'Todos',
  helpers: readonly PanelHelper[] = [],
): Span[] {
  const lines: Span[][] = [[paint(`${oneLine(title)} · ${countDone(items)}/${items.length} done`, 'bold')]];
  if (items.length === 0) lines.push(['  ', paint('(no todos yet)', 'dim')]);
  for (const item of items) {
    lines.push(itemLine(item, '  '));
    lines.push(...helperLines(helpers.filter((helper) => helper.under === item.id)));
  }
  const ids = new Set(items.map((item) => item.id));
  lines.push(
    ...helperLines(helpers.filter((helper) => helper.under === undefined || !ids.has(helper.under))),
  );
  return lines.flatMap((line, index) => (index === 0 ? line : ['\n', ...line]));
}

function itemLine(item: TodoItem, indent: string): Span[] {
  const icon = ICONS[item.status];
  if (item.status === 'completed') return [indent, paint(`${icon} ${oneLine(item.text)}`, 'dim')];
  if (item.status === 'pending') return [`${indent}${icon} ${oneLine(item.text)}`];
  return [indent, paint(`${icon} ${oneLine(item.activeForm || item.text)}`, 'bold', 'cyan')];
}

/** Each helper's head line, and a running one's list under it. */
function helperLines(helpers: readonly PanelHelper[]): Span[][] {
  return helpers.flatMap((helper) => {
    const done = helper.items.length > 0 ? `, ${countDone(helper.items)}/${helper.items.length} done` : '';
    const title = `${helper.session} (${helper.kind}): ${oneLine(helper.description)}`;
    if (helper.ended) return [['    ', paint(`↳ ${title} · ${helper.ended}${done}`, 'dim')]];
    return [[`    ↳ ${title}${done}`], ...helper.items.map((item) => itemLine(item, '      '))];
  });
}

/** Model-written text on one line (the screen shows any control character in it as an escape). */
export function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}
