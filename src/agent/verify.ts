// What comes once the model says every item is completed: its last look at the files delivery would commit,
// then the verification gate, the maintainers' own check (verify_command), run in the tool sandbox. A failure
// goes back to the model with a "Fix" item on its list.
import { performance } from 'node:perf_hooks';
import type { AgentObserver, NudgeKind, VerifyReport } from './events.js';
import { verifyEnding, type Reply } from './endings.js';
import { MAX_TODOS, type TodoItem, type TodoManager } from './todo/todos.js';
import type { ContentBlockParam } from '../model/messages.js';
import { runCommand } from '../sandbox/commands/run-command.js';
import { withPipefail } from './tools/bash.js';
import type { ToolContext } from './tools/types.js';

export interface VerifySettings {
  /** A shell command (`npm test`), run with bash -c in the workspace like a bash tool call. */
  command: string;
  /** Rounds in all; after the last failing one the run ends incomplete. */
  attempts: number;
}

/** The item a failing round opens (or reopens) on the list. */
export const FIX_ITEM = {
  text: 'Fix: verify_command fails',
  activeForm: 'Fixing the verify_command failure',
};
/** Characters of the command's output kept: the end, where test runners put their failures. */
const OUTPUT_TAIL_CHARS = 4_000;

/** What a verify round reads and changes of the run (the loop's Run has all of it). */
export interface VerifiedRun {
  readonly todos: TodoManager;
  readonly turn: number;
  readonly toolsReady: () => Promise<void>;
  nudge(kind: NudgeKind, text: string): ContentBlockParam;
  emit: AgentObserver;
}

/** The files delivery would commit, as the model is shown them before delivery. */
export interface DeliveryList {
  /** One message: the files with their line counts, what is held back, and what to do about strays. */
  text: string;
  /** The files it lists: a later look is shown only when a file not among them joined. */
  paths: readonly string[];
}

/** The model's last look at the files delivery would commit: a list is shown again only when a file joined it. */
export class LastLook {
  #seen: ReadonlySet<string> | undefined;
  /** The look was asked for once more before completing: it is asked that way once. */
  #askedAtEnd = false;

  constructor(private readonly list: (() => Promise<DeliveryList | undefined>) | undefined) {}

  /** The files delivery would commit, unless the model saw every one of them already. */
  async take(): Promise<string | undefined> {
    const list = await this.list?.();
    if (!list) return undefined;
    const seen = this.#seen;
    if (seen && list.paths.every((path) => seen.has(path))) return undefined;
    this.#seen = new Set(list.paths);
    return list.text;
  }

  /** The same before the run completes: once, and not when no turn is left (`lastChance`). */
  async beforeCompleting(lastChance: boolean): Promise<string | undefined> {
    const review = lastChance || this.#askedAtEnd ? undefined : await this.take();
    if (review) this.#askedAtEnd = true;
    return review;
  }
}

export class VerifyGate {
  #rounds = 0;
  #last: VerifyReport | undefined;

  constructor(
    readonly settings: VerifySettings,
    private readonly context: ToolContext,
  ) {}

  get last(): VerifyReport | undefined {
    return this.#last;
  }

  /** Every round has been used. */
  get exhausted(): boolean {
    return this.#rounds >= this.settings.attempts;
  }

  /** Runs the command once, with the per-call ceiling (bash_timeout) as its timeout. */
  async run(): Promise<VerifyReport> {
    this.#rounds++;
    const started = performance.now();
    const result = await runCommand(withPipefail(this.settings.command), {
      cwd: this.context.workspace,
      env: this.context.env,
      timeoutMs: this.context.bashTimeoutSeconds * 1000,
      limit: OUTPUT_TAIL_CHARS * 2,
      ...(this.context.signal ? { signal: this.context.signal } : {}),
      // The same sandbox as the tools: the check runs code from the model's working tree.
      ...(this.context.sandbox ? { sandbox: this.context.sandbox } : {}),
      // Redacted across the capture's cuts; the tail below is cut from redacted text, so it cannot split one.
      ...(this.context.redaction ? { redaction: this.context.redaction } : {}),
    });
    const output = result.output;
    this.#last = {
      command: this.settings.command,
      passed: result.exitCode === 0,
      round: this.#rounds,
      attempts: this.settings.attempts,
      exitCode: result.exitCode,
      timedOut: result.timedOut,
      aborted: result.aborted,
      durationMs: performance.now() - started,
      outputTail: output.length > OUTPUT_TAIL_CHARS ? `…${output.slice(-OUTPUT_TAIL_CHARS)}` : output,
    };
    return this.#last;
  }

  /**
   * One round once every item is completed: the run's ending when it passes (or fails its last round, or
   * `lastChance`: no turns left); else the failure goes back to the model as a new message, with a Fix item.
   */
  async check(run: VerifiedRun, lastChance: boolean): Promise<Reply> {
    const report = await run.toolsReady().then(() => this.run());
    run.emit({ type: 'verify', turn: run.turn, report });
    const ending = verifyEnding(report, lastChance || this.exhausted);
    if (ending) return ending;
    const items = withFixItem(run.todos.items);
    if (items) run.todos.update(items);
    const text = failureMessage(report, this.context.bashTimeoutSeconds, items !== undefined);
    return { content: [run.nudge('verify_failed', text)] };
  }
}

/** How a failed round ended, in a few words: "exit code 1", "timed out after 600 s". */
export function describeFailure(report: VerifyReport, timeoutSeconds?: number): string {
  if (report.timedOut) return timeoutSeconds ? `timed out after ${timeoutSeconds} s` : 'timed out';
  if (report.aborted) return 'was cancelled';
  return report.exitCode === null ? 'was killed by a signal' : `exit code ${report.exitCode}`;
}

/** The list with the Fix item in progress: the existing one reopened, or a new one at the end. */
export function withFixItem(items: readonly TodoItem[]): TodoItem[] | undefined {
  const fix = { ...FIX_ITEM, status: 'in_progress' as const };
  const existing = items.find((item) => item.text === FIX_ITEM.text);
  if (existing) return items.map((item) => (item === existing ? { ...item, ...fix } : item));
  if (items.length >= MAX_TODOS) return undefined;
  const ids = new Set(items.map((item) => item.id));
  let id = items.length + 1;
  while (ids.has(String(id))) id++;
  return [...items, { id: String(id), ...fix }];
}

/** The way out when the failure is not the model's: shown with every failed round. */
export const PRE_EXISTING =
  'It may have failed before your change too: check by running it without your change (`git stash`, run ' +
  'the command, `git stash pop`). If it fails the same way, say so: leave the Fix item open, add an item ' +
  '"Blocked: verify_command fails without this change too (what fails)", and finish with your summary. ' +
  'The run then ends incomplete with your work pushed; do not delete or complete an item to get past it.';

/** The new user message after a failed round: what failed, its output's end, and what to do. */
export function failureMessage(report: VerifyReport, timeoutSeconds: number, listed: boolean): string {
  const output = report.outputTail.trim() === '' ? '(no output)' : report.outputTail;
  const fence = '`'.repeat(Math.max(3, ...(output.match(/`+/g) ?? []).map((run) => run.length + 1)));
  return [
    `<verify-failed>The action ran the repository's verify command \`${report.command}\` after you marked ` +
      `every item completed (round ${report.round} of ${report.attempts}), and it failed: ` +
      `${describeFailure(report, timeoutSeconds)}. The work counts as done only once it passes. ` +
      `The end of its output:\n${fence}\n${output}\n${fence}</verify-failed>`,
    listed
      ? `Your todo list has the item "${FIX_ITEM.text}" in progress. If your change caused the failure, fix ` +
        'it, run the command yourself to check, then mark the item completed and finish with your summary.'
      : 'If your change caused the failure, fix it and run the command yourself to check, then finish with ' +
        'your summary.',
    PRE_EXISTING,
  ].join('\n\n');
}
