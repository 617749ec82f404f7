// The todo list as a small indented panel for a terminal, coloured only when the terminal wants colour.
import type { TodoItem, TodoStatus } from '../agent/todos.js';
import { countDone } from '../agent/todos.js';

export interface PanelOptions {
  color: boolean;
  title?: string;
}

const ICONS: Record<TodoStatus, string> = { pending: '○', in_progress: '▶', completed: '✔' };

const ESC = '\u001b[';
const STYLES = {
  bold: [`${ESC}1m`, `${ESC}22m`],
  dim: [`${ESC}2m`, `${ESC}22m`],
  cyan: [`${ESC}36m`, `${ESC}39m`],
} as const;
type Style = keyof typeof STYLES;

export function renderPanel(items: readonly TodoItem[], options: PanelOptions): string {
  const paint = (text: string, ...styles: Style[]) =>
    options.color
      ? styles.reduceRight((inner, style) => `${STYLES[style][0]}${inner}${STYLES[style][1]}`, text)
      : text;
  const title = `${oneLine(options.title ?? 'Todos')} · ${countDone(items)}/${items.length} done`;
  const lines = [paint(title, 'bold')];
  if (items.length === 0) lines.push(`  ${paint('(no todos yet)', 'dim')}`);
  for (const item of items) {
    const icon = ICONS[item.status];
    if (item.status === 'completed') lines.push(`  ${paint(`${icon} ${oneLine(item.text)}`, 'dim')}`);
    else if (item.status === 'pending') lines.push(`  ${icon} ${oneLine(item.text)}`);
    else lines.push(`  ${paint(`${icon} ${oneLine(item.activeForm || item.text)}`, 'bold', 'cyan')}`);
  }
  return lines.join('\n');
}

/**
 * Model-written text on one line, without control characters: an escape sequence in an item could
 * otherwise restyle or rewrite the user's terminal.
 */
function oneLine(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\s\u0000-\u001f\u007f-\u009f]+/g, ' ').trim();
}

/**
 * Whether to colour output on `stream`: FORCE_COLOR wins when set ('0' or 'false' turn colour off),
 * then a non-empty NO_COLOR turns it off, else colour goes to terminals only (not TERM=dumb).
 */
export function shouldColor(
  stream: Pick<NodeJS.WriteStream, 'isTTY'>,
  env: NodeJS.ProcessEnv = process.env,
): boolean {
  const force = env.FORCE_COLOR;
  if (force !== undefined) return force !== '0' && force.toLowerCase() !== 'false';
  if (env.NO_COLOR) return false;
  return stream.isTTY === true && env.TERM !== 'dumb';
}
