// Keeps a long run inside the context window, between two requests: compaction on the server where the model
// offers it (on demand, else at a threshold), clearing old tool results where it does not or when a
// compaction brings back no summary. After every compaction the next user turn re-states what the loop's
// own records know (restatement.ts). A compaction is no turn: the reminder's count never sees it.
import { CLEAR_AT_SHARE, makeRoom, needsClearing } from './clearing.js';
import { restatement } from './restatement.js';
import { picturesOverLimit } from '../pictures.js';
import { contextNote } from '../nudges.js';
import { usageOf, type Transcript } from '../turn.js';
import type { AgentObserver, NudgeKind } from '../events.js';
import type { AgentOptions } from '../options.js';
import type { TodoItem } from '../todo/todos.js';
import {
  withoutThinking,
  type ContentBlockParam,
  type Message,
  type MessageParam,
} from '../../model/messages.js';
import { compactionBlock, MIN_TRIGGER_TOKENS } from '../../model/compaction.js';
import type { ToolParam } from '../../model/messages.js';

/**
 * With threshold compaction the API compacts at the trigger (CLEAR_AT_SHARE of the budget); clearing waits
 * until this share, for a compaction that came back without a summary.
 */
export const CLEAR_BEHIND_THRESHOLD_SHARE = 0.9;

/** What the keeper reads of the run it keeps (the loop's Run has all of it). */
export interface KeptRun {
  readonly options: AgentOptions;
  readonly transcript: Transcript;
  readonly system: string;
  readonly toolbox: { readonly requestTools: readonly ToolParam[]; readonly definitions: unknown };
  readonly todos: { readonly items: readonly TodoItem[] };
  readonly turn: number;
  readonly maxTokens: number;
  /** The first message's text, restated after a compaction. */
  readonly firstText: string;
  /** What the maintainer said during the run, oldest first. */
  readonly inbox: { readonly words: readonly string[] };
  picturesToCount: boolean;
  nudge(kind: NudgeKind, text: string): ContentBlockParam;
  emit: AgentObserver;
}

export class ContextKeeper {
  /** Compactions that brought a summary, for the footer and the record. */
  compactions = 0;
  /** A threshold compaction came with the last response: its next user turn re-states the records. */
  #restateNext = false;

  constructor(readonly run: KeptRun) {}

  get kind() {
    return this.run.options.model.compaction;
  }

  /** The prompt budget: the max_context_tokens setting, never more than the model's window. */
  get budget(): number {
    const window = this.run.options.model.info.window;
    return Math.min(this.run.options.maxContextTokens ?? window, window);
  }

  /** Threshold compaction's trigger, when the budget allows one the API takes (at least 50,000 tokens). */
  get trigger(): number | undefined {
    const trigger = Math.floor(this.budget * CLEAR_AT_SHARE);
    return this.kind === 'threshold' && trigger >= MIN_TRIGGER_TOKENS ? trigger : undefined;
  }

  /**
   * After a response is recorded: a threshold compaction's block starts it. The API ignores what stands
   * before the block, so that goes from the history too; the block stays exactly as it came. A block without
   * a summary is a no-op the API also takes back as it is.
   */
  afterResponse(response: Message): void {
    const block = compactionBlock(response);
    if (!block) return;
    const { transcript } = this.run;
    const summarized = typeof block.content === 'string' && block.content !== '';
    this.#told(summarized, response);
    if (!summarized) return;
    const at = transcript.messages.findLastIndex((message) => message.role === 'assistant');
    transcript.messages.splice(0, at);
    transcript.markSent();
    this.#restateNext = true;
  }

  /**
   * After the next user turn is in the history, before it is sent: re-states the records after a threshold
   * compaction; near the budget, compacts on demand or clears; clears when the pictures are too many.
   */
  async keep(): Promise<void> {
    const { transcript } = this.run;
    if (this.#restateNext) {
      this.#restateNext = false;
      await this.#appendRestatement();
    }
    const { lastPrompt, lastOutput, messages } = transcript;
    const overPictures = this.run.picturesToCount && picturesOverLimit(messages);
    const over = needsClearing(lastPrompt, lastOutput, this.budget);
    if (over && this.kind === 'on-demand' && (await this.#compact())) return;
    const clearAt = this.trigger === undefined ? CLEAR_AT_SHARE : CLEAR_BEHIND_THRESHOLD_SHARE;
    if (lastPrompt + lastOutput > this.budget * clearAt || overPictures) this.#clear();
    // Still over after clearing (the pictures are all recent): look again next turn.
    this.run.picturesToCount = overPictures && picturesOverLimit(messages);
  }

  /**
   * Compaction on demand, keeping the newest turn word for word: the older messages are summarized, then the
   * history becomes the block (first, as returned), the last response without its thinking (bound to a
   * prefix that is gone), and the user turn that answers it with the records re-stated. A failure or a
   * response without a summary changes nothing and returns false.
   */
  async #compact(): Promise<boolean> {
    const { transcript, options } = this.run;
    const messages = transcript.messages;
    const [kept, answer] = messages.slice(-2);
    if (messages.length < 3 || kept?.role !== 'assistant' || answer?.role !== 'user') return false;
    let response: Message;
    try {
      response = await options.model.send({
        system: this.run.system,
        tools: this.run.toolbox.requestTools,
        messages: messages.slice(0, -2),
        maxTokens: this.run.maxTokens,
        summarize: true,
        ...(options.signal ? { signal: options.signal } : {}),
      });
    } catch {
      // A refused or failed compaction is not the run's end: clearing keeps it going.
      this.#told(false, undefined);
      return false;
    }
    transcript.addUsage(response);
    const block = (response.stop_reason as string) === 'compaction' ? compactionBlock(response) : undefined;
    const summarized = typeof block?.content === 'string' && block.content !== '';
    this.#told(summarized, response);
    if (!block || !summarized) return false;
    const [tail] = withoutThinking([kept]);
    messages.splice(0, messages.length, { role: 'assistant', content: [block as never] }, tail!, answer);
    transcript.markSent(1);
    // The conversation's size is known again from the next request.
    transcript.lastPrompt = 0;
    transcript.lastOutput = 0;
    await this.#appendRestatement();
    return true;
  }

  /** Old tool results give way, then the oldest turns; the note restates the list. */
  #clear(): void {
    const { transcript } = this.run;
    const { lastPrompt, lastOutput, messages } = transcript;
    const fixed = [this.run.system, this.run.toolbox.definitions];
    const room = makeRoom(messages, fixed, lastPrompt + lastOutput, this.budget);
    if (!room) return;
    // The history was rewritten: the next request adds only the turn that follows.
    transcript.markSent(1);
    this.#appendToLast(this.run.nudge('context_cleared', contextNote(room.dropped, this.run.todos.items)));
  }

  async #appendRestatement(): Promise<void> {
    const look = this.run.options.changedFiles;
    const files = look ? await look().catch(() => null) : null;
    const text = restatement({
      firstMessage: this.run.firstText,
      items: this.run.todos.items,
      maintainer: this.run.inbox.words,
      files,
    });
    this.#appendToLast(this.run.nudge('context_compacted', text));
  }

  /** Adds a block to the newest user turn, which is not sent yet (a new object: sent ones are frozen). */
  #appendToLast(block: ContentBlockParam): void {
    const messages = this.run.transcript.messages;
    const last = messages.at(-1) as MessageParam;
    const content =
      typeof last.content === 'string' ? [{ type: 'text' as const, text: last.content }] : last.content;
    messages[messages.length - 1] = { ...last, content: [...content, block] } as MessageParam;
  }

  #told(summarized: boolean, response: Message | undefined): void {
    if (summarized) this.compactions++;
    this.run.emit({
      type: 'compaction',
      turn: this.run.turn,
      kind: this.kind ?? 'on-demand',
      summarized,
      stopReason: response?.stop_reason ?? null,
      ...(response ? { usage: usageOf(response) } : {}),
    });
  }
}
