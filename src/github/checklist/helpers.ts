// The task tool's helpers in the checklist comment: a running helper's list nested under the parent's item
// it was started from, and one line once it ended (or, near GitHub's size limit, while it still runs). No
// line has a checkbox: the maintainer's edits are read from the parent's list alone (edits.ts).
import type { AgentEvent, AgentStatus, HelperKind } from '../../agent/events.js';
import { countDone, type TodoItem } from '../../agent/todo/todos.js';
import { escapeMarkdown, shorten } from '../../text/markdown.js';

/** A helper as the comment shows it. */
export interface HelperView {
  session: string;
  kind: HelperKind;
  description: string;
  /** The id of the parent's item it was started from, which it nests under. */
  under?: string;
  items: readonly TodoItem[];
  /** How it ended; absent while it runs. */
  ended?: { status: AgentStatus; turns: number };
}

const DESCRIPTION_MAX_CHARS = 100;

/** The mark of each way a run (or a helper) ends, wherever the checklist says how it ended. */
export const STATUS_MARK: Record<AgentStatus, string> = {
  completed: '✅',
  incomplete: '⏸',
  failed: '❌',
  cancelled: '⏹',
  planned: '📝',
};

/** The helpers after `event`, or undefined when it changes nothing the comment shows. */
export function nextHelpers(
  helpers: readonly HelperView[],
  event: AgentEvent,
): readonly HelperView[] | undefined {
  if (event.type === 'helper_start') {
    const { session, kind, description, under } = event;
    return [...helpers, { session, kind, description, items: [], ...(under === undefined ? {} : { under }) }];
  }
  if (event.type !== 'helper') return undefined;
  const inner = event.event;
  const change =
    inner.type === 'todos'
      ? { items: inner.items }
      : inner.type === 'end'
        ? { items: inner.result.todos, ended: { status: inner.result.status, turns: inner.result.turns } }
        : undefined;
  if (!change || !helpers.some((helper) => helper.session === event.session)) return undefined;
  return helpers.map((helper) => (helper.session === event.session ? { ...helper, ...change } : helper));
}

/**
 * The lines of `helpers`, indented by `indent`: a running one with its list (unless `folded`), an ended one
 * on one line.
 */
export function helperLines(
  helpers: readonly HelperView[],
  { indent, folded, shown }: { indent: string; folded: boolean; shown: number },
): string[] {
  return helpers.flatMap((helper) => {
    const head = `${indent}- ${headLine(helper)}`;
    if (helper.ended || folded) return [head];
    return [head, ...helper.items.map((item) => `${indent}  - ${nestedItem(item, shown)}`)];
  });
}

function headLine({ kind, description, items, ended }: HelperView): string {
  const title = `helper: **${escapeMarkdown(shorten(description, DESCRIPTION_MAX_CHARS))}** (${kind})`;
  const done = items.length > 0 ? `${countDone(items)} of ${items.length} done` : 'planning';
  if (!ended) return `🔄 ${title} · ${done}`;
  const turns = `${ended.turns} turn${ended.turns === 1 ? '' : 's'}`;
  return `${STATUS_MARK[ended.status]} ${title} · ${ended.status}, ${items.length > 0 ? `${done}, ` : ''}${turns}`;
}

function nestedItem(item: TodoItem, maxChars: number): string {
  const shown = (text: string) => escapeMarkdown(shorten(text, maxChars));
  if (item.status === 'completed') return `✅ ${shown(item.text)}`;
  if (item.status === 'pending') return `⬜ ${shown(item.text)}`;
  return `🔄 **${shown(item.activeForm || item.text)}**`;
}
