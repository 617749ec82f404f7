// What a run of the agent loop is given: the model, the workspace, its limits, its observers, and the word
// it may get from outside while it goes (the maintainer's edits, the files delivery would commit).

import type { AgentObserver } from './events.js';
import type { Model } from '../model/client.js';
import type { OutputSchema } from '../model/output-schema.js';
import type { Briefing } from './briefing/prompt.js';
import type { TodoItem } from './todo/todos.js';
import type { OutsideTools, RepositoryReader } from './tools/types.js';
import type { ThreadPicture } from './pictures.js';
import type { Redaction } from '../sandbox/commands/capped-output.js';
import type { Sandbox } from '../sandbox/namespaces.js';
import type { DeliveryList, VerifySettings } from './verify.js';
import type { HelperRole, TaskLimits } from './helpers/role.js';

/** The list of the model's last look lives beside it (verify.ts); delivery and the action name it here. */
export type { DeliveryList } from './verify.js';

export interface AgentOptions extends Briefing {
  model: Model;
  /** A JSON Schema the run's final answer must match (`output_schema`); none: no final answer is asked. */
  outputSchema?: OutputSchema;
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
  /**
   * Instead of `sandbox`: the sandbox while it is still being built, with whatever else the tools need (the
   * action's own git directory). The loop asks the model without waiting for it and waits for it before its
   * first tool call or check (tools-ready.ts); a rejection fails the run. Undefined: no sandbox.
   */
  sandboxReady?: Promise<Sandbox | undefined>;
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
  /**
   * The files delivery would commit (undefined: the run changed nothing), for the model's last look. Shown
   * beside the results of the todo call that completes the list, so that the model's next turn (its summary,
   * as a rule) is the one that removes strays; shown once more, before the run completes, only when a file
   * joined the list since.
   */
  review?: () => Promise<DeliveryList | undefined>;
  /**
   * The files changed so far, one line each with lines added and removed as delivery counts them, for the
   * turn after a compaction; undefined when nothing changed. Unlike `review`, it claims nothing.
   */
  changedFiles?: () => Promise<string | undefined>;
  /** The thread's pictures, shown in the first message after its text. */
  pictures?: readonly ThreadPicture[];
  /** Reads this repository on GitHub for the github tool, outside the sandbox; absent, there is no such tool. */
  github?: RepositoryReader;
  /** The tools of the maintainer's MCP servers, and what the system prompt says of the servers. */
  outside?: OutsideTools;
  /** The task tool's limits (helpers/); absent, or `maxParallel` 0: the run has no task tool. */
  tasks?: TaskLimits;
  /** Set on a helper's own run only (helpers/): its session, its kind, and the run's cost beside it. */
  helper?: HelperRole;
}

/** Given the list as it stands: the list to replace it with, if any, and what to tell the model. */
export type InboxEntry = (current: readonly TodoItem[]) => { items?: readonly TodoItem[]; text: string };
