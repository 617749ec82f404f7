// The agent loop: ask the model, run its tools, keep the todo list, nudge when needed, stop on a clear reason.
import { performance } from 'node:perf_hooks';
import { DEFAULT_BASH_TIMEOUT_SECONDS, DEFAULT_MAX_TURNS } from './defaults.js';
import { ContextKeeper } from './context/keeper.js';
import {
  tellAll,
  watchRefusals,
  type AgentObserver,
  type AgentResult,
  type NudgeKind,
  type StructuredOutput,
} from './events.js';
import { type ContentBlockParam, type Message } from '../model/messages.js';
import { firstMessage, systemPrompt } from './briefing/prompt.js';
import type { AgentOptions } from './options.js';
import { estimateCost, outputRoom } from '../model/catalogue.js';
import { DEFAULT_REMINDER_ROUNDS, ReminderPolicy } from './todo/reminder.js';
import { MaintainerInbox } from './todo/inbox.js';
import { allCompleted, MAIN_SESSION, TodoManager } from './todo/todos.js';
import { offerHelpers, toolShape, type Helpers } from './helpers/helpers.js';
import { createToolbox, type Toolbox } from './tools/index.js';
import { outsideFor } from './tools/late.js';
import type { ToolContext } from './tools/types.js';
import { pictureBlocks } from './pictures.js';
import { toolContext, toolNetwork, toolsReady } from './tools-ready.js';
import { LastLook, VerifyGate } from './verify.js';
import { addUsage, hasText, observedBlock, toolResult, Transcript, usageOf } from './turn.js';
import { finalAnswer } from './final-answer.js';
import {
  blockedEnding,
  CANCELLED,
  costEnding,
  modelErrorEnding,
  stopReasonEnding,
  turnLimitEnding,
  type Ending,
  type Reply,
} from './endings.js';
import {
  CONTINUE,
  CONTINUE_AFTER_CUT_OFF,
  cutOffCall,
  describeOpen,
  OPEN_ITEM_NUDGES,
  openItemsNudge,
} from './nudges.js';

export async function runAgent(options: AgentOptions): Promise<AgentResult> {
  const run = new Run(await outsideFor(options));
  return await run.loop();
}

class Run {
  readonly todos: TodoManager;
  readonly reminder: ReminderPolicy;
  readonly toolbox: Toolbox;
  readonly helpers: Helpers | undefined;
  readonly context: ToolContext;
  readonly verify: VerifyGate | undefined;
  readonly transcript: Transcript;
  readonly maxTurns: number;
  /** The system prompt: the same for every request of the run. */
  readonly system: string;
  turn = 0;
  /** Whether this turn ran a todo call: the reminder counts the turn once it is answered. */
  calledTodo = false;
  toolCalls = 0;
  maxTokens: number;
  openItemNudges = 0;
  /** The model's last look at the files delivery would commit (verify.ts). */
  readonly lastLook: LastLook;
  /**
   * Whether the history may hold more pictures than a request should: only a turn that added pictures (or
   * one after a clearing that could not get under the limit) scans the history for them.
   */
  picturesToCount: boolean;
  /** The network gate's refusals, told as events and counted for the result. */
  readonly refusals: ReturnType<typeof watchRefusals>;
  /** The first message's text: the task and what came with it, re-stated after a compaction. */
  readonly firstText: string;
  /** What the maintainer said during the run (their edits of the checklist), drained between requests. */
  readonly inbox: MaintainerInbox;
  /** Compaction on the server, or clearing, between two requests (context/keeper.ts). */
  readonly keeper: ContextKeeper;
  /** Waits, once, for the tools' sandbox if it is still being built (tools-ready.ts). */
  readonly toolsReady: () => Promise<void>;

  constructor(readonly options: AgentOptions) {
    this.todos = new TodoManager(options.resumedTodos ?? [], options.helper?.session ?? MAIN_SESSION);
    this.todos.onChange((items) => this.emit({ type: 'todos', turn: this.turn, items }));
    this.inbox = new MaintainerInbox(options.inbox, this.todos);
    this.reminder = new ReminderPolicy(options.reminderRounds ?? DEFAULT_REMINDER_ROUNDS);
    const bashTimeoutSeconds = options.bashTimeoutSeconds ?? DEFAULT_BASH_TIMEOUT_SECONDS;
    this.helpers = offerHelpers(options, runAgent, this);
    this.toolbox = createToolbox(this.todos, bashTimeoutSeconds, {
      ...toolShape(options),
      ...(this.helpers ? { task: this.helpers.tool } : {}),
      ...(options.github ? { github: options.github } : {}),
      ...(options.outside ? { outside: options.outside } : {}),
      toolSearch: options.model.info.toolSearch,
      joined: (note) => this.nudge('tools_joined', note),
    });
    this.system = systemPrompt(options.outside, this.toolbox.deferred);
    this.context = toolContext(options, bashTimeoutSeconds);
    this.maxTokens = outputRoom(options.model.info).first;
    this.maxTurns = options.maxTurns ?? DEFAULT_MAX_TURNS;
    this.verify = options.verify && new VerifyGate(options.verify, this.context);
    this.lastLook = new LastLook(options.review);
    this.firstText = firstMessage(options);
    const pictures = this.toolbox.withJoined(pictureBlocks(options.pictures ?? []));
    this.transcript = new Transcript(this.firstText, pictures);
    this.picturesToCount = (options.pictures ?? []).some((picture) => picture.image);
    this.refusals = watchRefusals(
      toolNetwork(options),
      (event) => this.emit(event),
      () => this.turn,
    );
    this.toolsReady = toolsReady(options, this.context);
    this.keeper = new ContextKeeper(this);
  }

  /** The working turns, then the final answer when one was asked for. */
  async loop(): Promise<AgentResult> {
    const ending = await this.turns();
    return this.finish(ending, await this.structuredOutput(ending));
  }

  /** Each turn: ask, record, answer (the tools, a nudge, or the end), report the turn, reply with notes. */
  async turns(): Promise<Ending> {
    while (this.turn < this.maxTurns) {
      if (this.options.signal?.aborted) return CANCELLED;
      this.turn++;
      this.calledTodo = false;
      this.emit({ type: 'turn_start', turn: this.turn });
      const response = await this.ask();
      if ('end' in response) return response;
      this.record(response);
      const spent = this.cost() + (this.options.helper?.costBeside() ?? 0);
      const reply = costEnding(spent, this.options.maxCostUsd) ?? (await this.answer(response));
      // The one place a turn is counted, whatever way it was answered: no stop reason can skip it.
      this.reminder.recordTurn(this.calledTodo);
      this.endTurn(response);
      if ('end' in reply) return reply;
      if (reply.content.length > 0) await this.replyWith(reply.content);
    }
    const check = allCompleted(this.todos.items) ? await this.checkCompleted(true) : undefined;
    return turnLimitEnding(this.maxTurns, check);
  }

  /** The answer `output_schema` asks for, once the work ended in a way the model can still answer after. */
  async structuredOutput({ end }: Ending): Promise<StructuredOutput | undefined> {
    const output = this.options.outputSchema;
    if (!output || (end !== 'completed' && end !== 'planned' && end !== 'incomplete')) return undefined;
    return await finalAnswer(
      {
        model: this.options.model,
        system: this.system,
        tools: this.toolbox.requestTools,
        transcript: this.transcript,
        maxTokens: this.maxTokens,
        ...(this.options.signal ? { signal: this.options.signal } : {}),
      },
      output,
    );
  }

  /** One request with the conversation so far; a failure the client gave up on ends the run. */
  async ask(): Promise<Message | Ending> {
    try {
      this.emit({ type: 'request', turn: this.turn, messages: this.transcript.takeUnsent() });
      return await this.options.model.send({
        system: this.system,
        tools: this.toolbox.requestTools,
        messages: this.transcript.messages,
        maxTokens: this.maxTokens,
        ...(this.keeper.trigger ? { trigger: this.keeper.trigger } : {}),
        ...(this.options.signal ? { signal: this.options.signal } : {}),
      });
    } catch (error) {
      return modelErrorEnding(error, this.options.model.service);
    }
  }

  /** What to send back for this response, or why the run ends here. */
  async answer(response: Message): Promise<Reply> {
    switch (response.stop_reason) {
      case 'tool_use':
        return { content: await this.runTools(response) };
      case 'max_tokens':
        return { content: await this.recoverFromCutOff(response) };
      case 'pause_turn':
        // The assistant content is already in history as is; calling again lets the model continue.
        return { content: [] };
      case 'refusal':
      case 'model_context_window_exceeded':
        return stopReasonEnding(response.stop_reason);
      default:
        return await this.afterEndTurn(response);
    }
  }

  /** Runs every tool call of the turn, in order, and answers them all in one user turn. */
  async runTools(response: Message, skipLast = false): Promise<ContentBlockParam[]> {
    const calls = response.content.filter((block) => block.type === 'tool_use');
    const results: ContentBlockParam[] = [];
    await this.toolsReady();
    const runCall = (index: number) =>
      this.toolbox.run(calls[index]!.name, calls[index]!.input, this.context);
    const helpers = this.helpers?.batch(skipLast ? calls.slice(0, -1) : calls, runCall);
    for (const [index, call] of calls.entries()) {
      if (skipLast && index === calls.length - 1) {
        results.push(toolResult(call.id, cutOffCall(call.name), true));
        continue;
      }
      const started = performance.now();
      const outcome = await (helpers?.(index) ?? runCall(index));
      const output = this.options.redaction?.redact(outcome.output) ?? outcome.output;
      this.toolCalls++;
      if (call.name === 'todo') this.calledTodo = true;
      this.emit({
        type: 'tool',
        turn: this.turn,
        name: call.name,
        input: call.input,
        output,
        isError: outcome.isError,
        durationMs: performance.now() - started,
        ...(outcome.exitCode === undefined ? {} : { exitCode: outcome.exitCode }),
      });
      if (outcome.images?.length) this.picturesToCount = true;
      results.push(toolResult(call.id, output, outcome.isError, outcome.images));
    }
    if (calls.length > 0) this.openItemNudges = 0;
    // The list just became all done: the files about to be delivered go with the results, costing no turn.
    if (this.calledTodo && !this.options.planOnly && allCompleted(this.todos.items)) {
      const review = await this.lastLook.take();
      if (review) results.push(this.nudge('review', review));
    }
    return results;
  }

  /** A reply cut off by max_tokens: answer any cut tool call with an error, and give the next reply more room. */
  async recoverFromCutOff(response: Message): Promise<ContentBlockParam[]> {
    this.maxTokens = outputRoom(this.options.model.info).raised;
    // Every tool call needs its result. Only a tool call at the very end can be the one the limit cut.
    if (response.content.some((block) => block.type === 'tool_use')) {
      return await this.runTools(response, response.content.at(-1)?.type === 'tool_use');
    }
    return [this.nudge('more_tokens', CONTINUE_AFTER_CUT_OFF)];
  }

  /** The model stopped talking: finished, stopped early with open items, or said nothing. */
  async afterEndTurn(response: Message): Promise<Reply> {
    // Word from the maintainer that came in as the model stopped: it is the next thing to work on.
    const steering = this.takeInbox();
    if (steering.length > 0) return { content: steering };
    if (!hasText(response)) return { content: [this.nudge('continue', CONTINUE)] };
    if (this.options.planOnly && this.todos.items.length > 0)
      return { end: 'planned', reason: 'the plan is ready' };
    if (allCompleted(this.todos.items)) return await this.checkCompleted();
    // An item it cannot do, named as blocked: an honest stop, not one to nudge past.
    const blocked = blockedEnding(this.todos.items);
    if (blocked) return blocked;
    if (this.openItemNudges >= OPEN_ITEM_NUDGES) {
      return { end: 'incomplete', reason: `the model stopped with ${describeOpen(this.todos.items)}` };
    }
    this.openItemNudges++;
    return { content: [this.nudge('open_items', openItemsNudge(this.todos.items, this.todos.written))] };
  }

  /**
   * Every item is completed: the run completes, unless verify_command fails. A failure opens a Fix item and
   * goes back to the model as a new message, until the rounds run out (or `lastChance`: no turns left).
   */
  async checkCompleted(lastChance = false): Promise<Reply> {
    const review = await this.lastLook.beforeCompleting(lastChance);
    if (review) return { content: [this.nudge('review', review)] };
    if (!this.verify) return { end: 'completed', reason: 'every todo item is completed' };
    return await this.verify.check(this, lastChance);
  }

  /** The next user turn, with its notes; then the history is kept inside the window before it is sent. */
  async replyWith(content: ContentBlockParam[]): Promise<void> {
    this.transcript.reply(this.withNotes(content));
    await this.keeper.keep();
  }

  /** Adds the word from the maintainer and the reminder when due: after every tool_result, as the API requires. */
  withNotes(content: ContentBlockParam[]): ContentBlockParam[] {
    const notes: ContentBlockParam[] = this.takeInbox();
    const reminder = this.reminder.take(this.todos.items);
    if (reminder) notes.push(this.nudge('todo_reminder', reminder));
    return this.toolbox.withJoined([...content, ...notes]);
  }

  /** The maintainer's word that came in since the last request, as notes. */
  takeInbox(): ContentBlockParam[] {
    return this.inbox.take().map((text) => this.nudge('maintainer', text));
  }

  /** The run's tokens: its own requests' and its helpers'. */
  get usage() {
    return this.helpers ? addUsage({ ...this.transcript.usage }, this.helpers.usage) : this.transcript.usage;
  }

  cost(): number {
    return estimateCost(this.options.model.info.prices, this.usage);
  }

  nudge(kind: NudgeKind, text: string): ContentBlockParam {
    this.emit({ type: 'nudge', turn: this.turn, kind, text });
    return { type: 'text', text };
  }

  record(response: Message): void {
    const text = this.transcript.record(response);
    this.keeper.afterResponse(response);
    this.emit({
      type: 'response',
      turn: this.turn,
      stopReason: response.stop_reason,
      content: response.content.map(observedBlock),
      usage: usageOf(response),
    });
    if (text) this.emit({ type: 'assistant_text', turn: this.turn, text });
  }

  endTurn(response: Message): void {
    this.emit({
      type: 'turn_end',
      turn: this.turn,
      stopReason: response.stop_reason,
      usage: usageOf(response),
      total: { ...this.usage },
      costUsd: this.cost(),
    });
  }

  finish({ end: status, reason }: Ending, structured?: StructuredOutput): AgentResult {
    this.helpers?.close();
    const result: AgentResult = {
      status,
      reason,
      todos: this.todos.items,
      lastText: this.transcript.lastText,
      turns: this.turn,
      toolCalls: this.toolCalls,
      usage: { ...this.usage },
      costUsd: this.cost(),
      ...(this.verify?.last ? { verify: this.verify.last } : {}),
      ...this.refusals.stop(),
      ...(this.keeper.compactions > 0 ? { compactions: this.keeper.compactions } : {}),
      ...(structured ? { structuredOutput: structured } : {}),
    };
    this.emit({ type: 'end', result });
    return result;
  }

  emit: AgentObserver = (event) => tellAll(this.options.observers, event);
}
