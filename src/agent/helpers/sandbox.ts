// The explore helpers' sandbox: a read-only copy of the run's, behind the same network gate, built when the
// first explore helper starts and closed with the run. Without a sandbox, explore helpers have no bash.
import type { Sandbox } from '../../sandbox/namespaces.js';
import { openSibling } from '../../sandbox/setup.js';
import { errorMessage } from '../../text/error-sentence.js';

/** Where an explore helper's bash runs, or why it has none (a sentence added to its answer). */
export type ExplorerSandbox = { sandbox: Sandbox } | { note: string };

export class ReadOnlySandbox {
  #opening: Promise<ExplorerSandbox> | undefined;
  #opened: Sandbox | undefined;
  #closed = false;

  /** `run`: the run's sandbox (absent: the tools run without one). */
  constructor(readonly run: Sandbox | undefined) {}

  /** The read-only sandbox: the run's own when it is read-only already (a plan), else one built once. */
  open(): Promise<ExplorerSandbox> {
    const run = this.run;
    if (!run)
      return Promise.resolve({
        note: ' It had no bash: commands run read-only only in a sandbox, and this run has none.',
      });
    if (run.config.workspaceAccess === 'read-only') return Promise.resolve({ sandbox: run });
    this.#opening ??= openSibling(run, undefined, 'read-only').then(
      (sandbox): ExplorerSandbox => {
        if (this.#closed) sandbox.close();
        this.#opened = sandbox;
        return { sandbox };
      },
      (error: unknown): ExplorerSandbox => ({
        note: ` It had no bash: the read-only sandbox could not be built (${errorMessage(error)}).`,
      }),
    );
    return this.#opening;
  }

  close(): void {
    this.#closed = true;
    this.#opened?.close();
  }
}
