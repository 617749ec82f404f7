// The agent loop: ask the model, run its tools, keep the todo list, nudge when needed, stop on a clear reason.
import { performance } from 'node:perf_hooks';
import { childEnv } from '../sandbox/child-env.js';
import { CLEAR_DOWN_TO_SHARE, clearOldToolResults, dropOldTurns, needsClearing } from './context.js';
import { withoutThinking } from '../model/messages.js';
import { type AgentObserver, type AgentResult, type AgentStatus, type NudgeKind } from './events.js';
import { emptyUsage, promptTokens, type Usage } from '../model/usage.js';
import { classifyModelError, type Model } from '../model/client.js';
import { type ContentBlockParam, type Message, type MessageParam } from '../model/messages.js';
import { firstMessage, SYSTEM_PROMPT, type Briefing } from './prompt.js';
import { estimateCost, outputRoom } from '../model/catalogue.js';
import { DEFAULT_REMINDER_ROUNDS, ReminderPolicy } from './reminder.js';
import { allCompleted, openItems, renderPlain, TodoManager, type TodoItem } from './todos.js';
import { createToolbox, type Toolbox } from './tools/index.js';
import type { ToolContext } from './tools/types.js';
import type { Redaction } from '../sandbox/capped-output.js';
import type { Sandbox } from '../sandbox/namespaces.js';
import { failureMessage, VerifyGate, withFixItem, type VerifySettings } from './verify.js';
import { errorMessage } from '../text/error-sentence.js';

export interface AgentOptions extends Briefing {
  model: Model;
  workspace: string;
  maxTurns?: number;
  reminderRounds?: number;
  bashTimeoutSeconds?: number;
  observers?: AgentObserver[];
  signal?: AbortSignal;
  /** Applied to every tool output before the model or an observer sees it, and across every cut of it. */
  redaction?: Redaction;
  /** Values to keep out of the tools' environment on top of the usual secret names. */
  secrets?: string[];
  /** Where bash commands run (sandbox-setup.ts); absent, they run directly. */
  sandbox?: Sandbox;
  /** Stop as incomplete once the estimated cost passes this many USD. */
  maxCostUsd?: number;
  /**
   * The most prompt tokens a request may grow to (max_context_tokens); default and ceiling: the model's
   * window. Old tool results are cleared well before a request would reach it.
   */
  maxContextTokens?: number;
  /** The maintainers' check, run when every item is completed; the run completes only once it passes. */
  verify?: VerifySettings;
  /** Files the file tools refuse to read or write (a credentials file in the workspace). */
  hiddenFiles?: readonly string[];
  /** Plan only: no tools that write, and the run ends `planned` once the model has a list and stops. */
  planOnly?: boolean;
  /**
   * Word from outside while the run goes (e.g. a maintainer's edit of the list), drained between turns: each
   * entry may replace the list (validated as a todo update) and adds a text to the next user message.
   */
  inbox?: () => InboxEntry[];
}

/** Given the list as it stands: the list to replace it with, if any, and what to tell the model. */
export type InboxEntry = (current: readonly TodoItem[]) => { items?: readonly TodoItem[]; text: string };

const OPEN_ITEM_NUDGES = 2;
/** The most one bash call (or the verify command) may last when no bash_timeout is given. */
export const DEFAULT_BASH_TIMEOUT_SECONDS = 600;
/** The most model turns in one run when no max_turns is given (the action's documented default). */
export const DEFAULT_MAX_TURNS = 150;

export async function runAgent(options: AgentOptions): Promise<AgentResult> {
  const run = new Run(options);
  return await run.loop();
}

class Run {
  readonly todos: TodoManager;
  readonly reminder: ReminderPolicy;
  readonly toolbox: Toolbox;
  readonly context: ToolContext;
  readonly verify: VerifyGate | undefined;
  readonly messages: MessageParam[] = [];
  readonly usage: Usage = emptyUsage();
  turn = 0;
  toolCalls = 0;
  lastText = '';
  maxTokens: number;
  openItemNudges = 0;
  lastPrompt = 0;
  lastOutput = 0;

  constructor(readonly options: AgentOptions) {
    this.todos = new TodoManager(options.resumedTodos ?? []);
    this.todos.onChange((items) => this.emit({ type: 'todos', turn: this.turn, items }));
    this.reminder = new ReminderPolicy(options.reminderRounds ?? DEFAULT_REMINDER_ROUNDS);
    const bashTimeoutSeconds = options.bashTimeoutSeconds ?? DEFAULT_BASH_TIMEOUT_SECONDS;
    this.toolbox = createToolbox(this.todos, bashTimeoutSeconds, {
      readOnly: options.planOnly ?? false,
    });
    this.context = {
      workspace: options.workspace,
      bashTimeoutSeconds,
      env: childEnv(process.env, options.secrets ?? []),
      ...(options.signal ? { signal: options.signal } : {}),
      ...(options.sandbox ? { sandbox: options.sandbox } : {}),
      ...(options.redaction ? { redaction: options.redaction } : {}),
      ...(options.hiddenFiles ? { hidden: options.hiddenFiles } : {}),
    };
    this.maxTokens = outputRoom(options.model.info).first;
    this.verify = options.verify && new VerifyGate(options.verify, this.context);
    this.messages.push({ role: 'user', content: [{ type: 'text', text: firstMessage(options) }] });
  }

  /** The prompt budget: the max_context_tokens setting, never more than the model's window. */
  get budget(): number {
    const window = this.options.model.info.window;
    return Math.min(this.options.maxContextTokens ?? window, window);
  }

  /** An observer that throws (a log, a comment) must never stop the work it is watching. */
  emit: AgentObserver = (event) => {
    for (const observer of this.options.observers ?? []) {
      try {
        observer(event);
      } catch {
        // Rendering is best effort; the result still carries everything.
      }
    }
  };

  async loop(): Promise<AgentResult> {
    const maxTurns = this.options.maxTurns ?? DEFAULT_MAX_TURNS;
    while (this.turn < maxTurns) {
      if (this.options.signal?.aborted) return this.finish('cancelled', 'the run was cancelled');
      this.turn++;
      this.emit({ type: 'turn_start', turn: this.turn });

      let response: Message;
      try {
        response = await this.options.model.send({
          system: SYSTEM_PROMPT,
          tools: this.toolbox.definitions,
          messages: this.messages,
          maxTokens: this.maxTokens,
          ...(this.options.signal ? { signal: this.options.signal } : {}),
        });
      } catch (error) {
        return this.finishOnModelError(error);
      }
      this.record(response);

      const overBudget = this.overBudget();
      const reply = overBudget
        ? { end: 'incomplete' as const, reason: overBudget }
        : await this.answer(response);
      this.emit({
        type: 'turn_end',
        turn: this.turn,
        stopReason: response.stop_reason,
        usage: usageOf(response),
        total: { ...this.usage },
        costUsd: this.cost(),
      });
      if ('end' in reply) return this.finish(reply.end, reply.reason);
      if (reply.content.length > 0)
        this.messages.push({ role: 'user', content: this.withNotes(reply.content) });
    }
    const limit = `it reached the limit of ${maxTurns} turns (max_turns)`;
    if (!allCompleted(this.todos.items)) return this.finish('incomplete', limit);
    const check = await this.checkCompleted(true);
    if (!('end' in check) || check.end === 'incomplete')
      return this.finish('incomplete', 'end' in check ? `${limit}, and ${check.reason}` : limit);
    return this.finish(check.end, check.reason);
  }

  /** What to send back for this response, or why the run ends here. */
  async answer(
    response: Message,
  ): Promise<{ content: ContentBlockParam[] } | { end: AgentStatus; reason: string }> {
    switch (response.stop_reason) {
      case 'tool_use':
        return { content: await this.runTools(response) };
      case 'max_tokens':
        return { content: await this.recoverFromCutOff(response) };
      case 'pause_turn':
        // The assistant content is already in history as is; calling again lets the model continue.
        this.reminder.recordTurn(false);
        return { content: [] };
      case 'refusal':
        return {
          end: 'failed',
          reason: 'the model declined to continue with this task (stop reason: refusal)',
        };
      case 'model_context_window_exceeded':
        return { end: 'incomplete', reason: "the conversation filled the model's context window" };
      default:
        return await this.afterEndTurn(response);
    }
  }

  /** Runs every tool call of the turn, in order, and answers them all in one user turn. */
  async runTools(response: Message, skipLast = false): Promise<ContentBlockParam[]> {
    const calls = response.content.filter((block) => block.type === 'tool_use');
    const results: ContentBlockParam[] = [];
    let calledTodo = false;
    for (const [index, call] of calls.entries()) {
      if (skipLast && index === calls.length - 1) {
        results.push(toolResult(call.id, cutOffMessage(call.name), true));
        continue;
      }
      const started = performance.now();
      const outcome = await this.toolbox.run(call.name, call.input, this.context);
      const output = this.options.redaction?.redact(outcome.output) ?? outcome.output;
      this.toolCalls++;
      if (call.name === 'todo') calledTodo = true;
      this.emit({
        type: 'tool',
        turn: this.turn,
        name: call.name,
        input: call.input,
        output,
        isError: outcome.isError,
        durationMs: performance.now() - started,
      });
      results.push(toolResult(call.id, output, outcome.isError));
    }
    this.reminder.recordTurn(calledTodo);
    if (calls.length > 0) this.openItemNudges = 0;
    return results;
  }

  /** A reply cut off by max_tokens: answer any cut tool call with an error, and give the next reply more room. */
  async recoverFromCutOff(response: Message): Promise<ContentBlockParam[]> {
    this.maxTokens = outputRoom(this.options.model.info).raised;
    // Every tool call needs its result. Only a tool call at the very end can be the one the limit cut.
    if (response.content.some((block) => block.type === 'tool_use')) {
      return await this.runTools(response, response.content.at(-1)?.type === 'tool_use');
    }
    this.reminder.recordTurn(false);
    return [
      this.nudge(
        'more_tokens',
        'Your reply was cut off by the output limit. Continue exactly where you stopped.',
      ),
    ];
  }

  /** The model stopped talking: finished, stopped early with open items, or said nothing. */
  async afterEndTurn(
    response: Message,
  ): Promise<{ content: ContentBlockParam[] } | { end: AgentStatus; reason: string }> {
    this.reminder.recordTurn(false);
    // Word from the maintainer that came in as the model stopped: it is the next thing to work on.
    const steering = this.takeInbox();
    if (steering.length > 0) return { content: steering };
    if (!hasText(response)) return { content: [this.nudge('continue', 'Please continue with the task.')] };
    if (this.options.planOnly && this.todos.items.length > 0)
      return { end: 'planned', reason: 'the plan is ready' };
    if (allCompleted(this.todos.items)) return await this.checkCompleted();
    if (this.openItemNudges >= OPEN_ITEM_NUDGES) {
      return { end: 'incomplete', reason: `the model stopped with ${describeOpen(this.todos.items)}` };
    }
    this.openItemNudges++;
    const text = this.todos.written
      ? `You stopped, but the todo list still has ${describeOpen(this.todos.items)}:\n\n${renderPlain(this.todos.items)}\n\nContinue with the next open item, or update the list if the plan changed (mark items completed only when they are really done).`
      : 'You stopped without a plan. Call todo with your plan, then work through it.';
    return { content: [this.nudge('open_items', text)] };
  }

  /**
   * Every item is completed: the run completes, unless verify_command fails. A failure opens a Fix item and
   * goes back to the model as a new message, until the rounds run out (or `lastChance`: no turns left).
   */
  async checkCompleted(
    lastChance = false,
  ): Promise<{ content: ContentBlockParam[] } | { end: AgentStatus; reason: string }> {
    if (!this.verify) return { end: 'completed', reason: 'every todo item is completed' };
    const report = await this.verify.run();
    this.emit({ type: 'verify', turn: this.turn, report });
    const command = `verify_command \`${report.command}\``;
    if (report.passed)
      return { end: 'completed', reason: `every todo item is completed and ${command} passed` };
    if (report.aborted) return { end: 'cancelled', reason: 'the run was cancelled' };
    if (lastChance || this.verify.exhausted) {
      return {
        end: 'incomplete',
        reason: `${command} still fails after ${report.round} round${report.round === 1 ? '' : 's'}`,
      };
    }
    const items = withFixItem(this.todos.items);
    if (items) this.todos.update(items);
    const text = failureMessage(report, this.context.bashTimeoutSeconds, items !== undefined);
    return { content: [this.nudge('verify_failed', text)] };
  }

  /** Adds the reminder and the context note when due: after every tool_result block, as the API requires. */
  withNotes(content: ContentBlockParam[]): ContentBlockParam[] {
    const notes: ContentBlockParam[] = this.takeInbox();
    const reminder = this.reminder.take(this.todos.items);
    if (reminder) notes.push(this.nudge('todo_reminder', reminder));
    if (needsClearing(this.lastPrompt, this.lastOutput, this.budget)) {
      const note = this.clearContext(this.budget);
      if (note) notes.push(this.nudge('context_cleared', note));
    }
    return [...content, ...notes];
  }

  /**
   * Makes room in a conversation near the budget: old tool results become stubs, then the oldest whole
   * turns go until it is back under CLEAR_DOWN_TO_SHARE. That changes the prefix of every thinking block
   * kept, which the API would refuse, so the kept turns lose their thinking (the documented way). Returns
   * the note that restates the list, if anything changed.
   */
  clearContext(budget: number): string | undefined {
    const charsOf = (value: unknown) => JSON.stringify(value).length;
    const fixedChars = charsOf(SYSTEM_PROMPT) + charsOf(this.toolbox.definitions);
    const sentChars = this.messages.reduce((sum, message) => sum + charsOf(message), fixedChars);
    // The last request measured how many tokens its characters made; sizes after clearing use the same rate.
    const perChar = (this.lastPrompt + this.lastOutput) / sentChars;
    const cleared = clearOldToolResults(this.messages);
    const estimate = {
      fixedTokens: fixedChars * perChar,
      tokensOf: (m: MessageParam) => charsOf(m) * perChar,
    };
    const dropped = dropOldTurns(this.messages, estimate, budget * CLEAR_DOWN_TO_SHARE);
    if (cleared + dropped === 0) return undefined;
    this.messages.splice(0, this.messages.length, ...withoutThinking(this.messages));
    const what =
      dropped > 0
        ? `Older tool results were cleared and the ${dropped} oldest turns removed`
        : 'Older tool results were cleared';
    return `<context-note>${what} to keep this conversation within the context window.</context-note>\nYour todo list, as it stands:\n\n${renderPlain(this.todos.items)}`;
  }

  /** Drains the inbox: applies each entry's list (a refused one is reported instead) and returns its texts. */
  takeInbox(): ContentBlockParam[] {
    return (this.options.inbox?.() ?? []).map((entry) => {
      const { items, text } = entry(this.todos.items);
      let refusal = '';
      try {
        if (items) this.todos.update(items);
      } catch (error) {
        refusal = `\n\n(The list could not take this change, so it stays as it was: ${errorMessage(error)}.)`;
      }
      return this.nudge('maintainer', `${text}${refusal}`);
    });
  }

  /** Why the run must stop for its cost, if it must. */
  overBudget(): string | undefined {
    const limit = this.options.maxCostUsd;
    if (limit === undefined || this.cost() <= limit) return undefined;
    return `its estimated cost ($${this.cost().toFixed(2)}) passed the limit of $${limit.toFixed(2)} (max_cost_usd)`;
  }

  cost(): number {
    return estimateCost(this.options.model.info.prices, this.usage);
  }

  nudge(kind: NudgeKind, text: string): ContentBlockParam {
    this.emit({ type: 'nudge', turn: this.turn, kind, text });
    return { type: 'text', text };
  }

  record(response: Message): void {
    const usage = usageOf(response);
    addUsage(this.usage, usage);
    this.lastPrompt = promptTokens(usage);
    this.lastOutput = usage.output_tokens;
    // Empty text blocks would be refused when sent back, and an empty assistant turn is no turn at all.
    const content = response.content.filter((block) => block.type !== 'text' || block.text.trim() !== '');
    if (content.length > 0)
      this.messages.push({ role: 'assistant', content: content as ContentBlockParam[] });
    const text = response.content
      .filter((block) => block.type === 'text')
      .map((block) => block.text)
      .join('\n')
      .trim();
    if (text) {
      this.lastText = text;
      this.emit({ type: 'assistant_text', turn: this.turn, text });
    }
  }

  finishOnModelError(error: unknown): AgentResult {
    const failure = classifyModelError(error, this.options.model.service);
    if (failure.kind === 'cancelled') return this.finish('cancelled', failure.message);
    if (failure.kind === 'context_window') return this.finish('incomplete', failure.message);
    return this.finish('failed', failure.message);
  }

  finish(status: AgentStatus, reason: string): AgentResult {
    const result: AgentResult = {
      status,
      reason,
      todos: this.todos.items,
      lastText: this.lastText,
      turns: this.turn,
      toolCalls: this.toolCalls,
      usage: { ...this.usage },
      costUsd: this.cost(),
      ...(this.verify?.last ? { verify: this.verify.last } : {}),
    };
    this.emit({ type: 'end', result });
    return result;
  }
}

function toolResult(id: string, output: string, isError: boolean): ContentBlockParam {
  // An empty tool_result text block would be refused; say so instead.
  return {
    type: 'tool_result',
    tool_use_id: id,
    content: output || '(no output)',
    ...(isError ? { is_error: true } : {}),
  };
}

function hasText(message: Message): boolean {
  return message.content.some((block) => block.type === 'text' && block.text.trim() !== '');
}

function cutOffMessage(name: string): string {
  return `your ${name} call was cut off by the output token limit before its input was complete, so it did not run. Send it again; for a large file, write it in smaller parts.`;
}

function describeOpen(items: readonly TodoItem[]): string {
  const open = openItems(items).length;
  return items.length === 0 ? 'no plan' : `${open} of ${items.length} items open`;
}

function usageOf(message: Message): Usage {
  const usage = message.usage;
  return {
    input_tokens: usage?.input_tokens ?? 0,
    output_tokens: usage?.output_tokens ?? 0,
    cache_creation_input_tokens: usage?.cache_creation_input_tokens ?? 0,
    cache_read_input_tokens: usage?.cache_read_input_tokens ?? 0,
  };
}

function addUsage(total: Usage, add: Usage): void {
  total.input_tokens += add.input_tokens;
  total.output_tokens += add.output_tokens;
  total.cache_creation_input_tokens += add.cache_creation_input_tokens;
  total.cache_read_input_tokens += add.cache_read_input_tokens;
}
