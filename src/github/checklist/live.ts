// The checklist comment while a run goes: created before the first model call, edited in place, and read
// back every few seconds so that a maintainer's edit is merged into the run rather than overwritten.
import type { AgentObserver, AgentResult } from '../../agent/events.js';
import type { InboxEntry } from '../../agent/options.js';
import type { TodoItem } from '../../agent/todo/todos.js';
import { errorSentence } from '../../text/error-sentence.js';
import type { Issues } from '../api/issues.js';
import { statusOf } from '../api/octokit.js';
import type { RepoLocation } from '../urls.js';
import { outcomeOf, resumeOf, type DeliveredWork, type RunVerdict } from './outcome.js';
import { PendingEdits } from './pending-edits.js';
import { ChecklistProgress } from './progress.js';
import type { ChecklistState } from './render.js';
import { ChecklistWatch } from './watch.js';
import { CommentWriter } from './writer.js';

export interface LiveChecklistOptions {
  issues: Issues;
  issueNumber: number;
  /** What the comment shows from the start: the task, the run's link, the sandbox, the resume state. */
  initial: Omit<ChecklistState, 'items' | 'phase' | 'turn' | 'usage'> & { note?: string };
  /** The list an earlier run left, which this one continues. */
  items: readonly TodoItem[];
  /** Where the work's branch is linked to. */
  repo: RepoLocation;
  /** The branch the run started on, kept for a later run when nothing was pushed. */
  startBranch: string | undefined;
  /** Told of a read or a write that failed: the run goes on without it. */
  warn: (message: string) => void;
}

/** The checklist comment of a run, from its first write to its last. */
export class LiveChecklist {
  #commentId: number | undefined;
  #url: string | undefined;
  /** A look taken by `readCommentBack`, and whether the next write may go on it. */
  #look: Promise<unknown> | undefined;
  #readBack = false;
  /** The run is over: the watch, if it has not started yet, never starts. */
  #over = false;
  readonly #edits: PendingEdits;
  readonly #watch: ChecklistWatch;
  readonly #writer: CommentWriter;
  readonly #progress: ChecklistProgress;

  /**
   * Starts creating the comment (planning…) at once, without waiting for it: the first model request does not
   * wait; later writes edit it in place, and the watch starts once it exists.
   */
  constructor(private readonly options: LiveChecklistOptions) {
    this.#edits = new PendingEdits(options.items);
    // A maintainer's edit is shown at once, and handed to the agent at its next turn.
    this.#watch = new ChecklistWatch(options.issues, (found) => {
      this.#edits.add(found);
      this.#progress.update({ items: this.#edits.shown() });
    });
    this.#writer = new CommentWriter((body) => this.#write(body), { onError: this.#warn('write') });
    this.#progress = new ChecklistProgress(this.#writer, { ...options.initial, items: options.items });
    this.#progress.shownItems = (items) => this.#edits.shown(items);
    const { note } = options.initial;
    this.#progress.update({ phase: 'planning', ...(note ? { note } : {}) });
    void this.#writer.settled().then(() => {
      if (!this.#over) this.#watch.start(this.#warn('read'));
    });
  }

  /** Where the comment is now (a new comment replaces a deleted one). */
  get url(): string | undefined {
    return this.#url;
  }

  /** Mirrors the agent's list, turns, tokens and verify reports into the comment. */
  get observer(): AgentObserver {
    return this.#progress.observer;
  }

  /** The maintainer's edits of the comment not yet handed to the agent loop (its inbox). */
  readonly inbox = (): InboxEntry[] => this.#edits.take();

  /** Holds the writer's own writes from the model's last answer until the final write (`finish`). */
  /** What the footer learns after the start (the tools' isolation, how the MCP servers fared): it rides along with the next write. */
  later(patch: Partial<Pick<ChecklistState, 'sandbox' | 'mcp'>>): void {
    Object.assign(this.#progress.state, patch);
  }

  hold(): void {
    // The final write follows the delivery: an edit still waiting for the writer's interval goes with it.
    this.#writer.pause();
  }

  /**
   * Looks at the comment once now, beside the delivery's last request (the pull request), so that the final
   * write goes on that look rather than look again first: a round trip fewer after the model's last answer,
   * and a look late enough to see an edit the maintainer made while the work was being committed.
   */
  readCommentBack(): void {
    this.#look = this.#watch.check().catch(this.#warn('read'));
  }

  /**
   * Stops watching, writes the run's outcome and delivery (and the run record's file name, to say where it
   * is), and returns the final body.
   */
  async finish(
    result: AgentResult,
    delivery: DeliveredWork,
    recordFile?: string,
    verdict: RunVerdict = result.status,
  ): Promise<string> {
    this.#stop();
    if (this.#look) {
      await this.#look;
      this.#readBack = true;
    }
    const progress = this.#progress;
    progress.update({
      ...outcomeOf(result, delivery, this.options.repo, verdict),
      ...(recordFile ? { record: recordFile } : {}),
      items: this.#edits.shown(result.todos),
      resume: { ...progress.state.resume, ...resumeOf(result, delivery, this.options.startBranch) },
    });
    await progress.flush();
    return progress.body();
  }

  /** Stops watching and writes the run as failed with the error's sentence. */
  async fail(error: unknown): Promise<void> {
    this.#stop();
    this.#progress.update({ phase: 'failed', note: errorSentence(error) });
    await this.#progress.flush();
  }

  /**
   * One write of the body. An edit made since our last write is merged first rather than overwritten (the
   * final write goes on the look taken beside the delivery); a deleted comment is made anew.
   */
  async #write(body: string): Promise<void> {
    const { issues, issueNumber } = this.options;
    if (this.#readBack) this.#readBack = false;
    else if (await this.#watch.check().catch(this.#warn('read'))) body = this.#progress.body();
    if (this.#commentId !== undefined) {
      try {
        this.#watch.wrote(await issues.updateComment(this.#commentId, body));
        return;
      } catch (error) {
        // Someone deleted the checklist: start a new one rather than lose the state.
        if (statusOf(error) !== 404) throw error;
      }
    }
    const created = await issues.createComment(issueNumber, body);
    this.#commentId = created.id;
    this.#url = created.htmlUrl;
    this.#watch.wrote(created);
  }

  #stop(): void {
    this.#over = true;
    this.#watch.stop();
  }

  #warn(what: string) {
    return (error: unknown) =>
      this.options.warn(`could not ${what} the checklist comment: ${errorSentence(error)}`);
  }
}
