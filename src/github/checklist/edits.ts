// A maintainer's edit of the checklist comment, read against the list the comment was written from: which
// items were reworded, added, deleted, ticked or unticked, matched to the written items (and so their ids)
// by lining the shown lines up with the lines the action wrote for them (shortened as it wrote them). Only
// the comment's own list is read: not a code block (a failed check's output is shown in one), nor the output
// section, the footer or the hidden state that follow the list.
import { renderPlain, validateTodos, type TodoItem } from '../../agent/todo/todos.js';
import { ITEM_MAX_CHARS, itemLine } from './render.js';
import { STATE_MARKER } from './state.js';
import { stripHidden } from '../thread/hidden-text.js';
import { redactAndCut } from '../../text/redact.js';

export type ListEdit =
  | { kind: 'reworded'; id: string; text: string }
  | {
      kind: 'added';
      text: string;
      done: boolean;
      /** The item shown just above it, if any. */ after?: string;
    }
  | { kind: 'deleted'; id: string; text: string }
  | { kind: 'ticked'; id: string }
  | { kind: 'unticked'; id: string };

interface ShownLine {
  done: boolean;
  /** The line after its box, as written in Markdown. */
  rest: string;
}

const TASK_LINE = /^ {0,3}[-*+] \[([ xX])\] (.*)$/;
/** A code fence (CommonMark): three or more backticks or tildes after at most three spaces, then its info. */
const FENCE = /^ {0,3}(`{3,}|~{3,})(.*)$/;
/** Where the action's list has ended: the output section or the footer it writes below it. */
const AFTER_THE_LIST = /^ {0,3}<(?:details|sub)>/i;
/** Longest item text taken from an edit. */
const MAX_EDITED_CHARS = 1_000;

/**
 * What changed between the list the comment was written from and the task-list lines it shows now.
 * `shownChars` is how much of each item the action showed (the state's `cut` when it shortened them).
 */
export function readEdits(
  body: string,
  written: readonly TodoItem[],
  shownChars: number = ITEM_MAX_CHARS,
): ListEdit[] {
  const shown = shownLines(body);
  const kept = commonLines(
    written.map((item) => boxed(itemLine(item, shownChars)).rest),
    shown.map((line) => line.rest),
  );
  const edits: ListEdit[] = [];
  /** The id of the written item each shown line stands for (kept or reworded), in shown order. */
  let above: string | undefined;
  const same = (w: number, s: number, reworded: boolean) => {
    const item = written[w]!;
    const text = reworded ? cleanText(shown[s]!.rest) : item.text;
    if (!text) return deleted(w);
    if (reworded) edits.push({ kind: 'reworded', id: item.id, text });
    edits.push(...boxEdits(item, shown[s]!));
    above = item.id;
  };
  const deleted = (w: number) => edits.push({ kind: 'deleted', id: written[w]!.id, text: written[w]!.text });
  const added = (s: number) => {
    const text = cleanText(shown[s]!.rest);
    if (text) edits.push({ kind: 'added', text, done: shown[s]!.done, ...(above ? { after: above } : {}) });
  };
  let [w, s] = [0, 0];
  for (const [keptW, keptS] of [...kept, [written.length, shown.length] as const]) {
    // In a gap between kept lines, old and new lines pair up as rewordings (the likeliest pairs, in order);
    // the old lines left were deleted, the new ones added.
    const pairs = new Map(
      likeliestPairs(
        written.slice(w, keptW).map((item) => item.text),
        shown.slice(s, keptS).map((line) => cleanText(line.rest)),
      ).map(([i, j]) => [s + j, w + i]),
    );
    const paired = new Set(pairs.values());
    for (let k = w; k < keptW; k++) if (!paired.has(k)) deleted(k);
    for (let k = s; k < keptS; k++) {
      const old = pairs.get(k);
      if (old === undefined) added(k);
      else same(old, k, true);
    }
    if (keptW < written.length) same(keptW, keptS, false);
    [w, s] = [keptW + 1, keptS + 1];
  }
  return edits;
}

/**
 * The current list with the maintainer's edits applied: edits to items the list no longer has are dropped;
 * added items take fresh ids, placed after the item shown above them. Throws a TodoUpdateError when the
 * result breaks a list rule (more than 20 items).
 */
export function applyEdits(current: readonly TodoItem[], edits: readonly ListEdit[]): TodoItem[] {
  const next = current.map((item) => ({ ...item }));
  const ids = new Set(next.map((item) => item.id));
  /** After which item the next addition below a given item goes (additions keep their shown order). */
  const lastAfter = new Map<string | undefined, string>();
  let fresh = Math.max(0, ...current.map((item) => Number(item.id)).filter(Number.isInteger)) + 1;
  for (const edit of edits) {
    if (edit.kind === 'added') {
      while (ids.has(String(fresh))) fresh++;
      const item: TodoItem = {
        id: String(fresh),
        text: edit.text,
        status: edit.done ? 'completed' : 'pending',
      };
      ids.add(item.id);
      const anchor = lastAfter.get(edit.after) ?? edit.after;
      const index = anchor === undefined ? -1 : next.findIndex((other) => other.id === anchor);
      next.splice(anchor === undefined ? 0 : index === -1 ? next.length : index + 1, 0, item);
      lastAfter.set(edit.after, item.id);
      continue;
    }
    const index = next.findIndex((item) => item.id === edit.id);
    const item = next[index];
    if (!item) continue;
    if (edit.kind === 'deleted') next.splice(index, 1);
    if (edit.kind === 'reworded') {
      item.text = edit.text;
      delete item.activeForm;
    }
    if (edit.kind === 'ticked') item.status = 'completed';
    if (edit.kind === 'unticked') item.status = 'pending';
  }
  return validateTodos(next);
}

/** The edits in words for the model, with the list as it now stands; empty when nothing changed. */
export function describeEdits(edits: readonly ListEdit[], items: readonly TodoItem[]): string {
  if (edits.length === 0) return '';
  const idOf = new Map(items.map((item) => [item.text, item.id]));
  const lines = edits.map((edit) => {
    switch (edit.kind) {
      case 'reworded':
        return `- reworded #${edit.id}: ${JSON.stringify(edit.text)}`;
      case 'added':
        return `- added #${idOf.get(edit.text) ?? '?'}: ${JSON.stringify(edit.text)}${edit.done ? ' (ticked as done)' : ''}`;
      case 'deleted':
        return `- removed #${edit.id} (${JSON.stringify(edit.text)})`;
      case 'ticked':
        return `- ticked #${edit.id} as completed`;
      case 'unticked':
        return `- unticked #${edit.id}: it is open again`;
    }
  });
  const note = [
    'The maintainer edited the todo list in the checklist comment. The item text below comes from the maintainer (hidden characters removed): follow their changes.',
    lines.join('\n'),
    `Your todo list is now:\n\n${renderPlain(items)}`,
  ].join('\n\n');
  return `<maintainer-edit>${note}</maintainer-edit>`;
}

function boxEdits(item: TodoItem, line: ShownLine): ListEdit[] {
  if (line.done && item.status !== 'completed') return [{ kind: 'ticked', id: item.id }];
  if (!line.done && item.status === 'completed') return [{ kind: 'unticked', id: item.id }];
  return [];
}

/**
 * The task-list lines of the comment's own list: before the output section (`<details>`), the footer
 * (`<sub>`) and the state, and outside fenced code. (Indented code cannot hold one: TASK_LINE allows at most
 * three spaces before the bullet.)
 */
function shownLines(body: string): ShownLine[] {
  const marker = body.lastIndexOf(STATE_MARKER);
  const visible = marker === -1 ? body : body.slice(0, marker);
  const lines: ShownLine[] = [];
  let fence: { char: string; length: number } | undefined;
  for (const line of visible.split(/\r?\n/)) {
    const mark = FENCE.exec(line);
    if (fence) {
      const closes =
        mark && mark[1]![0] === fence.char && mark[1]!.length >= fence.length && !mark[2]!.trim();
      if (closes) fence = undefined;
      continue;
    }
    if (mark && !(mark[1]![0] === '`' && mark[2]!.includes('`'))) {
      fence = { char: mark[1]![0]!, length: mark[1]!.length };
      continue;
    }
    if (AFTER_THE_LIST.test(line)) break;
    const task = TASK_LINE.exec(line);
    if (task) lines.push({ done: task[1] !== ' ', rest: (task[2] ?? '').trimEnd() });
  }
  return lines;
}

function boxed(line: string): ShownLine {
  const match = TASK_LINE.exec(line);
  return { done: match?.[1] !== ' ', rest: (match?.[2] ?? line).trimEnd() };
}

/**
 * Pairs of old and new texts, in order, that most likely are one item reworded: the most words in common
 * overall, and with nothing in common, position (so that one line replacing one line is a rewording).
 */
function likeliestPairs(before: readonly string[], after: readonly string[]): Array<[number, number]> {
  const score = (i: number, j: number) => 0.01 + similarity(before[i]!, after[j]!);
  const best = Array.from({ length: before.length + 1 }, () => new Array<number>(after.length + 1).fill(0));
  for (let i = before.length - 1; i >= 0; i--) {
    for (let j = after.length - 1; j >= 0; j--) {
      best[i]![j] = Math.max(best[i + 1]![j]!, best[i]![j + 1]!, score(i, j) + best[i + 1]![j + 1]!);
    }
  }
  const pairs: Array<[number, number]> = [];
  let [i, j] = [0, 0];
  while (i < before.length && j < after.length) {
    if (best[i]![j] === score(i, j) + best[i + 1]![j + 1]!) pairs.push([i++, j++]);
    else if (best[i]![j] === best[i + 1]![j]) i++;
    else j++;
  }
  return pairs;
}

/** Words two texts share, from 0 to 1 (Dice coefficient of their lower-case word sets). */
function similarity(a: string, b: string): number {
  const words = (text: string) => new Set(text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []);
  const [x, y] = [words(a), words(b)];
  if (x.size + y.size === 0) return 0;
  return (2 * [...x].filter((word) => y.has(word)).length) / (x.size + y.size);
}

/** Index pairs of the longest run of lines both sides share, in order. */
function commonLines(a: readonly string[], b: readonly string[]): Array<readonly [number, number]> {
  const table = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      table[i]![j] =
        a[i] === b[j] ? table[i + 1]![j + 1]! + 1 : Math.max(table[i + 1]![j]!, table[i]![j + 1]!);
    }
  }
  const pairs: Array<readonly [number, number]> = [];
  let [i, j] = [0, 0];
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) pairs.push([i++, j++]);
    else if (table[i + 1]![j]! >= table[i]![j + 1]!) i++;
    else j++;
  }
  return pairs;
}

/** A shown line's item text as the maintainer means it: the in-progress decoration and escapes undone, cleaned as issue text is. */
export function cleanText(rest: string): string {
  const active = /^🔄 \*\*(.+?)\*\*(?: — (.*))?$/.exec(rest);
  const text = active ? (active[2] ?? active[1] ?? '') : rest;
  const unescaped = text
    .replace(/\\([\\`*_[\]()|~!${}#])/g, '$1')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
  const clean = stripHidden(unescaped).replace(/\s+/g, ' ').trim();
  // Redacted before the cut: a secret pasted across the 1,000th character would otherwise go on in half.
  return redactAndCut(clean, MAX_EDITED_CHARS);
}
