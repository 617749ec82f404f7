// The helpers of one run: the task tool's calls, each run as an agent loop of its own (own context, own
// TodoManager under its own session id, own reminder count, own turn cap), explore helpers side by side
// and an edit helper alone (slots.ts). Their events reach the run's observers under their session id; their
// tokens count in the run's usage and cost.
import type { AgentEvent, AgentObserver, AgentResult, HelperKind } from '../events.js';
import type { AgentOptions } from '../options.js';
import type { Tool, ToolAnswer, ToolContext } from '../tools/types.js';
import type { ToolOutcome } from '../tools/index.js';
import { estimateCost } from '../../model/catalogue.js';
import { emptyUsage, type Usage } from '../../model/usage.js';
import { helperAnswer, helperTask } from './brief.js';
import type { Sandbox } from '../../sandbox/namespaces.js';
import { ReadOnlySandbox } from './sandbox.js';
import { Slots } from './slots.js';
import { taskTool, type taskInput, type TaskInput } from './task-tool.js';
import { ToolError } from '../tools/types.js';
import { addUsage } from '../turn.js';

/** What helpers see of the run that starts them (the loop's run). */
export interface HelperParent {
  readonly emit: AgentObserver;
  readonly turn: number;
  /** The item in progress, under which the views nest a helper's list. */
  readonly todos: { readonly current: { id: string } | undefined };
  /** The parent's own requests: their tokens. */
  readonly transcript: { readonly usage: Usage };
  /** The parent's tools' sandbox, once built (a helper starts only from a tool call, after it is). */
  readonly context: { readonly sandbox?: Sandbox | undefined };
}

type RunAgent = (options: AgentOptions) => Promise<AgentResult>;

/** The run's helpers, or undefined when the run starts none (a helper itself, or max_parallel_tasks 0). */
export function offerHelpers(
  options: AgentOptions,
  runAgent: RunAgent,
  parent: HelperParent,
): Helpers | undefined {
  if (options.helper || !options.tasks || options.tasks.maxParallel < 1) return undefined;
  return new Helpers(options, runAgent, parent);
}

export class Helpers {
  readonly tool: Tool<typeof taskInput, ToolAnswer>;
  readonly #slots: Slots;
  /** Each helper's usage so far, by session. */
  readonly #ledger = new Map<string, Usage>();
  #sandbox: ReadOnlySandbox | undefined;
  #started = 0;

  constructor(
    readonly options: AgentOptions,
    readonly runAgent: RunAgent,
    readonly parent: HelperParent,
  ) {
    const limits = options.tasks!;
    this.#slots = new Slots(limits.maxParallel);
    this.tool = taskTool((input) => this.run(input), limits);
  }

  /** Every helper's tokens so far (the parent adds its own). */
  get usage(): Usage {
    return [...this.#ledger.values()].reduce(addUsage, emptyUsage());
  }

  /**
   * The tool calls of one reply, for the loop to ask of each in turn: a task call starts together with the
   * task calls right after it (the slots decide which of them run at once) and gives its outcome; any other
   * call is the loop's to run (undefined).
   */
  batch(
    calls: ReadonlyArray<{ name: string }>,
    run: (index: number) => Promise<ToolOutcome>,
  ): (index: number) => Promise<ToolOutcome> | undefined {
    const started = new Map<number, Promise<ToolOutcome>>();
    return (index) => {
      if (calls[index]?.name !== this.tool.name) return undefined;
      for (let next = index; calls[next]?.name === this.tool.name && !started.has(next); next++)
        started.set(next, run(next));
      return started.get(index);
    };
  }

  /** One helper, from its slot to its answer. */
  async run({ description, prompt, kind = 'explore' }: TaskInput): Promise<ToolAnswer> {
    if (kind === 'edit' && this.options.planOnly)
      throw new ToolError('a plan run has no edit helpers: use kind explore');
    const release = await this.#slots.take(kind);
    try {
      const session = `helper-${++this.#started}`;
      const { sandbox, note } = await this.#sandboxFor(kind);
      const under = this.parent.todos.current?.id;
      this.parent.emit({
        type: 'helper_start',
        turn: this.parent.turn,
        session,
        kind,
        description,
        ...(under === undefined ? {} : { under }),
      });
      const result = await this.runAgent(this.#childOptions(session, kind, prompt, sandbox));
      this.#ledger.set(session, result.usage);
      const text = helperAnswer(description, kind, result, note);
      if (result.status === 'failed' || result.status === 'cancelled') throw new ToolError(text);
      return text;
    } finally {
      release();
    }
  }

  /** Closes the explore helpers' sandbox, if one was opened. */
  close(): void {
    this.#sandbox?.close();
  }

  /** The sandbox a helper's bash runs in: the run's for an edit helper, the read-only one for an explorer. */
  async #sandboxFor(kind: HelperKind): Promise<{ sandbox: ToolContext['sandbox']; note: string }> {
    const run = this.parent.context.sandbox;
    if (kind === 'edit') return { sandbox: run, note: '' };
    const opened = await (this.#sandbox ??= new ReadOnlySandbox(run)).open();
    return 'sandbox' in opened
      ? { sandbox: opened.sandbox, note: '' }
      : { sandbox: undefined, note: opened.note };
  }

  #childOptions(
    session: string,
    kind: HelperKind,
    prompt: string,
    sandbox: ToolContext['sandbox'],
  ): AgentOptions {
    const { options } = this;
    const maxTurns = options.tasks!.maxTurns;
    const same = <K extends keyof AgentOptions>(...keys: K[]) =>
      Object.fromEntries(keys.filter((key) => options[key] !== undefined).map((key) => [key, options[key]]));
    return {
      ...same(
        'facts',
        'instructions',
        'reminderRounds',
        'bashTimeoutSeconds',
        'signal',
        'redaction',
        'secrets',
        'maxCostUsd',
        'maxContextTokens',
        'hiddenFiles',
        'github',
        'outside',
      ),
      task: helperTask(kind, prompt, maxTurns),
      model: options.model,
      workspace: options.workspace,
      maxTurns,
      ...(sandbox ? { sandbox } : {}),
      observers: [(event) => this.#seen(session, event)],
      helper: { session, kind, costBeside: () => this.#costBeside(session) },
    };
  }

  /** A helper's event: its tokens go in the ledger, and the event to the run's observers under its session. */
  #seen(session: string, event: AgentEvent): void {
    if (event.type === 'turn_end') this.#ledger.set(session, { ...event.total });
    this.parent.emit({ type: 'helper', session, event });
  }

  /** What the rest of the run has cost so far, beside the helper `session`. */
  #costBeside(session: string): number {
    const prices = this.options.model.info.prices;
    let cost = estimateCost(prices, this.parent.transcript.usage);
    for (const [other, usage] of this.#ledger) if (other !== session) cost += estimateCost(prices, usage);
    return cost;
  }
}

/**
 * The tools a run has by its role: a plan run and an explore helper only read (an explore helper's bash runs
 * in a read-only sandbox, and without a sandbox it has no bash); a run that may start helpers has the task
 * tool, which a helper never has.
 */
export function toolShape(options: AgentOptions): { readOnly: boolean; bash: boolean } {
  const explore = options.helper?.kind === 'explore';
  return {
    readOnly: (options.planOnly ?? false) || explore,
    bash: !explore || options.sandbox !== undefined,
  };
}
