// Mirrors the agent's todo list into the checklist comment: every accepted update re-renders it.
import { countRefusal, refusedHosts, type AgentObserver, type RefusedHost } from '../../agent/events.js';
import type { TodoItem } from '../../agent/todo/todos.js';
import { emptyUsage } from '../../model/usage.js';
import { renderChecklist, type ChecklistState } from './render.js';
import type { CommentWriter } from './writer.js';
import { nextHelpers } from './helpers.js';

export class ChecklistProgress {
  readonly state: ChecklistState;
  readonly #writer: CommentWriter;
  readonly #started = Date.now();
  readonly #blocked = new Map<string, RefusedHost>();
  /** What the comment shows of the agent's list (e.g. with a maintainer's edits on top). */
  shownItems: (items: readonly TodoItem[]) => readonly TodoItem[] = (items) => items;

  constructor(
    writer: CommentWriter,
    initial: Omit<ChecklistState, 'items' | 'phase' | 'turn' | 'usage'> & Partial<ChecklistState>,
  ) {
    this.#writer = writer;
    this.state = { items: [], phase: 'planning', turn: 0, usage: emptyUsage(), ...initial };
  }

  /** The body as it stands now. */
  body(): string {
    return renderChecklist({ ...this.state, elapsedMs: Date.now() - this.#started });
  }

  /** Changes the state and queues the new body; the writer coalesces and never blocks the caller. */
  update(patch: Partial<ChecklistState>): void {
    Object.assign(this.state, patch);
    this.#writer.set(this.body());
  }

  /** Only todo changes write to GitHub; turns and tokens ride along with the next one. */
  observer: AgentObserver = (event) => {
    if (event.type === 'turn_end') {
      this.state.turn = event.turn;
      this.state.usage = event.total;
      this.state.costUsd = event.costUsd;
    } else if (event.type === 'compaction') {
      // Counted in the footer; rides along with the next write: a compaction changes nothing of the list.
      if (event.summarized) this.state.compactions = (this.state.compactions ?? 0) + 1;
    } else if (event.type === 'verify') {
      this.update({ verify: event.report });
    } else if (event.type === 'network_refused') {
      // Rides along with the next write, as turns and tokens do.
      countRefusal(this.#blocked, event);
      this.state.blockedHosts = refusedHosts(this.#blocked);
    } else if (event.type === 'todos') {
      this.update({ items: this.shownItems(event.items), phase: 'working', turn: event.turn });
    } else {
      // A helper started, changed its list or ended: its lines under the parent's item change.
      const helpers = nextHelpers(this.state.helpers ?? [], event);
      if (helpers) this.update({ helpers });
    }
  };

  async flush(): Promise<void> {
    await this.#writer.flush();
  }
}
