// The nag reminder: after N assistant turns without a `todo` call, the next request carries a reminder.
import { allCompleted, renderPlain, type TodoItem } from './todos.js';

export const REMINDER_PREFIX = '<reminder>Update your todos.</reminder>';

/** Turns without a `todo` call before the reminder, when no reminder_rounds is given. */
export const DEFAULT_REMINDER_ROUNDS = 3;

export class ReminderPolicy {
  #since = 0;

  constructor(readonly rounds = DEFAULT_REMINDER_ROUNDS) {
    if (!Number.isInteger(rounds) || rounds < 1)
      throw new RangeError(`reminder rounds must be ≥ 1, got ${rounds}`);
  }

  /** Turns since the last `todo` call or the last reminder. */
  get since(): number {
    return this.#since;
  }

  /** Counts one assistant turn. A list never written counts as not updated. */
  recordTurn(calledTodo: boolean): void {
    this.#since = calledTodo ? 0 : this.#since + 1;
  }

  /**
   * The reminder text when one is due (and restarts the count), else undefined.
   * Nothing is due while every item is completed: there is nothing left to track.
   */
  take(items: readonly TodoItem[]): string | undefined {
    if (this.#since < this.rounds || allCompleted(items)) return undefined;
    this.#since = 0;
    return `${REMINDER_PREFIX}\nYou have gone ${this.rounds} turns without updating the todo list. Mark finished items completed, set the one you are on to in_progress, or revise the plan. If the list is current, carry on without calling todo.\n\nCurrent list:\n${renderPlain(items)}`;
  }
}
