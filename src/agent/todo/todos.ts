// The TodoManager: the only owner of the agent's todo list, its working memory outside the conversation.
import { z } from 'zod';
import { stripInvisible } from '../../text/invisible.js';

export const MAX_TODOS = 20;
export const STATUSES = ['pending', 'in_progress', 'completed'] as const;
export type TodoStatus = (typeof STATUSES)[number];

export interface TodoItem {
  id: string;
  text: string;
  status: TodoStatus;
  /** Present-continuous text ("Running tests"), shown while the item is in progress. */
  activeForm?: string;
}

export class TodoUpdateError extends Error {
  override name = 'TodoUpdateError';
}

/**
 * The `todo` tool's input as the model sees it, `status` an enum. The tool parses the raw input itself with
 * `validateTodos`, which names the broken rule better than a schema error would.
 */
export const todoInputSchema = z.object({
  items: z
    .array(
      z.object({
        id: z
          .union([z.string(), z.number()])
          .optional()
          .describe('Stable id; defaults to the 1-based position'),
        text: z.string().describe('What this item achieves, imperative ("Add type hints")'),
        status: z.enum(STATUSES).optional().describe('Default pending'),
        activeForm: z
          .string()
          .optional()
          .describe('Present-continuous form shown while in progress ("Adding type hints")'),
      }),
    )
    .describe(`The whole list (it replaces the old one), at most ${MAX_TODOS} items`),
});

function describe(value: unknown): string {
  return typeof value === 'string' ? `'${value}'` : (JSON.stringify(value) ?? String(value));
}

/** Checks a proposed list against every rule; throws a TodoUpdateError naming the first broken one. */
export function validateTodos(items: unknown): TodoItem[] {
  if (!Array.isArray(items)) throw new TodoUpdateError(`items must be an array, got ${describe(items)}`);
  if (items.length > MAX_TODOS) {
    throw new TodoUpdateError(`at most ${MAX_TODOS} todos are allowed, got ${items.length}`);
  }
  const seen = new Set<string>();
  const validated = items.map((raw: unknown, index): TodoItem => {
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
      throw new TodoUpdateError(`item ${index + 1} must be an object with text and status`);
    }
    const item = raw as Record<string, unknown>;
    const rawId = item.id;
    const id =
      rawId === undefined || rawId === null || String(rawId).trim() === ''
        ? String(index + 1)
        : String(rawId).trim();
    // Invisible characters go: what the maintainer sees in the checklist is all the list holds.
    const text = typeof item.text === 'string' ? stripInvisible(item.text).trim() : '';
    if (!text) throw new TodoUpdateError(`item #${id}: text is required`);
    const status =
      typeof item.status === 'string' ? item.status.trim().toLowerCase() : (item.status ?? 'pending');
    if (!STATUSES.includes(status as TodoStatus)) {
      throw new TodoUpdateError(
        `item #${id}: invalid status ${describe(item.status)} (use pending, in_progress or completed)`,
      );
    }
    if (seen.has(id)) throw new TodoUpdateError(`duplicate id #${id}: every item needs its own id`);
    seen.add(id);
    const activeForm = typeof item.activeForm === 'string' ? stripInvisible(item.activeForm).trim() : '';
    return { id, text, status: status as TodoStatus, ...(activeForm ? { activeForm } : {}) };
  });
  const active = validated.filter((item) => item.status === 'in_progress');
  if (active.length > 1) {
    throw new TodoUpdateError(
      `only one item may be in_progress at a time, got ${active.length} (${active.map((i) => `#${i.id}`).join(', ')})`,
    );
  }
  return validated;
}

const MARKERS: Record<TodoStatus, string> = { pending: '[ ]', in_progress: '[>]', completed: '[x]' };

/** The plain rendering the model reads: `[>] #2: text`, then `(done/total completed)`. */
export function renderPlain(items: readonly TodoItem[]): string {
  if (items.length === 0) return 'No todos.';
  const lines = items.map((item) => `${MARKERS[item.status]} #${item.id}: ${item.text}`);
  return `${lines.join('\n')}\n\n(${countDone(items)}/${items.length} completed)`;
}

export function countDone(items: readonly TodoItem[]): number {
  return items.filter((item) => item.status === 'completed').length;
}

export function allCompleted(items: readonly TodoItem[]): boolean {
  return items.length > 0 && items.every((item) => item.status === 'completed');
}

export function openItems(items: readonly TodoItem[]): TodoItem[] {
  return items.filter((item) => item.status !== 'completed');
}

/**
 * An item completed although its check could not run here says why at the end of its text:
 * "Run the integration tests (not verified: they need a database)". The pull request lists these.
 */
const NOT_VERIFIED = /\(not verified:\s*(.+?)\)\s*$/i;

/** Completed items whose check did not run, each with the reason its text gives. */
export function unverifiedItems(items: readonly TodoItem[]): { text: string; reason: string }[] {
  return items.flatMap((item) => {
    const match = item.status === 'completed' ? NOT_VERIFIED.exec(item.text) : null;
    return match ? [{ text: item.text.slice(0, match.index).trim(), reason: match[1]!.trim() }] : [];
  });
}

/**
 * An item that cannot be done here stays open, and an item of its own names what blocks it:
 * "Blocked: npm test fails on the base branch too". A run that stops there ends incomplete and says so.
 */
const BLOCKER = /^blocked:\s*(.+)$/is;

/** What blocks the open items, as their "Blocked:" items say, in list order. */
export function blockers(items: readonly TodoItem[]): string[] {
  return items.flatMap((item) => {
    const match = item.status === 'completed' ? null : BLOCKER.exec(item.text);
    return match ? [match[1]!.trim()] : [];
  });
}

/** The session id of the run itself; helpers get their own. */
export const MAIN_SESSION = 'main';

export type TodoListener = (items: readonly TodoItem[]) => void;

/** Holds one session's list. An update replaces the whole list, or is refused and changes nothing. */
export class TodoManager {
  #items: readonly TodoItem[] = [];
  #written = false;
  readonly #listeners = new Set<TodoListener>();

  /**
   * @param session whose list it is: `main` for the run, a helper's own id (helpers/) for a helper's; lists
   * of different sessions never share an item or a listener.
   */
  constructor(
    initial: readonly TodoItem[] = [],
    readonly session = MAIN_SESSION,
  ) {
    if (initial.length > 0) {
      this.#items = Object.freeze(validateTodos(initial));
      this.#written = true;
    }
  }

  get items(): readonly TodoItem[] {
    return this.#items;
  }

  /** Whether the list was ever written (by the model or restored from an earlier run). */
  get written(): boolean {
    return this.#written;
  }

  get current(): TodoItem | undefined {
    return this.#items.find((item) => item.status === 'in_progress');
  }

  /** Validates and replaces the list; throws TodoUpdateError and keeps the old list on any broken rule. */
  update(items: unknown): string {
    const validated = validateTodos(items);
    this.#items = Object.freeze(validated);
    this.#written = true;
    for (const listener of this.#listeners) listener(this.#items);
    return renderPlain(this.#items);
  }

  render(): string {
    return renderPlain(this.#items);
  }

  onChange(listener: TodoListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }
}
