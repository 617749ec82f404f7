// Maintainer edits of the checklist noticed during a run, until the agent loop takes them in: the comment
// shows them on top of the agent's list meanwhile, so no write of the action drops them.
import type { InboxEntry } from '../../agent/options.js';
import type { TodoItem } from '../../agent/todo/todos.js';
import { applyEdits, describeEdits, type ListEdit } from './edits.js';
import { errorMessage } from '../../text/error-sentence.js';

export class PendingEdits {
  #batches: ListEdit[][] = [];
  /** The agent's own list, as last reported. */
  #base: readonly TodoItem[];

  constructor(initial: readonly TodoItem[]) {
    this.#base = initial;
  }

  add(edits: ListEdit[]): void {
    this.#batches.push(edits);
  }

  /** The agent's list with the edits it has not taken in yet; for the comment. */
  shown(base: readonly TodoItem[] = this.#base): readonly TodoItem[] {
    this.#base = base;
    let items = base;
    for (const edits of this.#batches) {
      try {
        items = applyEdits(items, edits);
      } catch {
        // An edit that breaks a list rule is reported to the model when it is taken in, and not shown.
      }
    }
    return items;
  }

  /** Hands every pending edit to the agent loop (its inbox), and forgets them. */
  take(): InboxEntry[] {
    const batches = this.#batches;
    this.#batches = [];
    return batches.map((edits) => (current) => {
      try {
        const items = applyEdits(current, edits);
        return { items, text: describeEdits(edits, items) };
      } catch (error) {
        const why = errorMessage(error);
        return {
          text: `The maintainer edited the checklist comment, but the edit could not be applied (${why}), so your list stays as it was.`,
        };
      }
    });
  }
}
