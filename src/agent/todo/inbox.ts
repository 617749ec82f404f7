// The maintainer's word during a run: their edits of the checklist, drained between two requests. Each entry
// may replace the list (validated as a todo update; a refused one stays as it was, and the note says why).
import { refusedListNote } from '../nudges.js';
import type { InboxEntry } from '../options.js';
import type { TodoManager } from './todos.js';

export class MaintainerInbox {
  /** What the maintainer said during the run, oldest first (re-stated after a compaction). */
  readonly words: string[] = [];

  constructor(
    private readonly source: (() => InboxEntry[]) | undefined,
    private readonly todos: TodoManager,
  ) {}

  /** Drains the inbox: applies each entry's list (a refused one is reported instead) and returns its texts. */
  take(): string[] {
    return (this.source?.() ?? []).map((entry) => {
      const { items, text } = entry(this.todos.items);
      let refusal = '';
      try {
        if (items) this.todos.update(items);
      } catch (error) {
        refusal = refusedListNote(error);
      }
      this.words.push(text);
      return `${text}${refusal}`;
    });
  }
}
