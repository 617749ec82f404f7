// Watches the checklist comment for a maintainer's edits while the run goes: a conditional GET (free when
// nothing changed) every ~10 s and before each write, so that the action's next write never overwrites an
// edit it has not merged. Only people with write access can edit a comment that is not theirs.
import { statusOf } from '../api/octokit.js';
import type { Issues, WrittenComment } from '../api/issues.js';
import { parseAgentState } from './state.js';
import { readEdits, type ListEdit } from './edits.js';

export const WATCH_INTERVAL_MS = 10_000;

export class ChecklistWatch {
  readonly #issues: Issues;
  readonly #onEdit: (edits: ListEdit[]) => void;
  #commentId: number | undefined;
  #etag: string | undefined;
  /** The body as GitHub holds it after our last write (line ends normalised). */
  #ours = '';
  #busy: Promise<boolean> = Promise.resolve(false);
  #timer: ReturnType<typeof setInterval> | undefined;

  constructor(issues: Issues, onEdit: (edits: ListEdit[]) => void) {
    this.#issues = issues;
    this.#onEdit = onEdit;
  }

  /**
   * Records what we wrote, and where (a new comment replaces a deleted one); the write's ETag, when GitHub
   * gave one, makes the next look a free 304 unless someone edits the comment after us.
   */
  wrote({ id, body, etag }: WrittenComment): void {
    if (id !== this.#commentId || etag) this.#etag = etag;
    this.#commentId = id;
    this.#ours = normalise(body);
  }

  /** Polls every `intervalMs` until `stop`; failures are only warned about by `onError`. */
  start(onError: (error: unknown) => void, intervalMs = WATCH_INTERVAL_MS): void {
    this.#timer = setInterval(() => void this.check().catch(onError), intervalMs);
    this.#timer.unref();
  }

  stop(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
  }

  /** Looks once (after any look in flight); true when it found an edit and handed it to `onEdit`. */
  check(): Promise<boolean> {
    const next = this.#busy.then(
      () => this.#look(),
      () => this.#look(),
    );
    this.#busy = next.catch(() => false);
    return next;
  }

  async #look(): Promise<boolean> {
    const id = this.#commentId;
    if (id === undefined) return false;
    let changed: { body: string; etag?: string } | undefined;
    try {
      changed = await this.#issues.commentIfChanged(id, this.#etag);
    } catch (error) {
      // A deleted checklist is no edit: the next write puts the state in a new comment.
      if (statusOf(error) === 404) return false;
      throw error;
    }
    if (!changed) return false;
    this.#etag = changed.etag;
    const body = normalise(changed.body);
    if (body === this.#ours) return false;
    // Read the edit against the list the edited comment was written from (its own agent-state, if kept).
    const written = parseAgentState(body) ?? parseAgentState(this.#ours);
    this.#ours = body;
    const edits = readEdits(body, written?.items ?? [], written?.cut);
    if (edits.length === 0) return false;
    this.#onEdit(edits);
    return true;
  }
}

function normalise(body: string): string {
  return body.replace(/\r\n/g, '\n');
}
