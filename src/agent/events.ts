// What the agent core tells its observers. The core knows nothing of GitHub or terminals.
import type { MessageParam } from '../model/messages.js';
import type { ToolNetwork } from '../sandbox/namespaces.js';
import type { Usage } from '../model/usage.js';
import type { CompactionKind } from '../model/catalogue.js';
import type { TodoItem } from './todo/todos.js';

/** `planned`: a plan-only run ended with the model's plan, and changed nothing. */
export type AgentStatus = 'completed' | 'incomplete' | 'failed' | 'cancelled' | 'planned';

export interface AgentResult {
  status: AgentStatus;
  /** One readable sentence on why the run ended where it did. */
  reason: string;
  todos: readonly TodoItem[];
  /** The model's last text, its own summary of the work. */
  lastText: string;
  turns: number;
  toolCalls: number;
  usage: Usage;
  /** Estimated from the model's list prices. */
  costUsd: number;
  /** The last round of verify_command, when one ran. */
  verify?: VerifyReport;
  /** The hosts the network gate refused the tools, most refused first; absent when it refused none. */
  refusedHosts?: readonly RefusedHost[];
  /** Compactions on the server that brought a summary; absent when there was none. */
  compactions?: number;
  /** The final answer `output_schema` asked for, or why there is none; absent when none was asked for. */
  structuredOutput?: StructuredOutput;
}

/** What became of the final answer `output_schema` asked for: the value, or why there is none. */
export type StructuredOutput = { value: unknown } | { error: string };

/** A host the network gate refused the tools in a run, and how often. */
export interface RefusedHost {
  /** The host, with its port where that is not 80 or 443. */
  host: string;
  count: number;
  /** The allowed_hosts entry that would let it through, where one would. */
  allow?: string;
}

/** Counts a refusal in `tally`, by host (and port, where not the web's). */
export function countRefusal(
  tally: Map<string, RefusedHost>,
  { host, port, allow }: { host: string; port: number; allow?: string },
): void {
  const name = port === 80 || port === 443 ? host : `${host.includes(':') ? `[${host}]` : host}:${port}`;
  const counted = tally.get(name) ?? { host: name, count: 0, ...(allow ? { allow } : {}) };
  counted.count++;
  tally.set(name, counted);
}

/** The tally's hosts, most refused first. */
export function refusedHosts(tally: ReadonlyMap<string, RefusedHost>): RefusedHost[] {
  return [...tally.values()].sort((a, b) => b.count - a.count || a.host.localeCompare(b.host));
}

/** Tells every observer of `event`: one that throws (a log, a comment) never stops the work it watches. */
export function tellAll(observers: readonly AgentObserver[] | undefined, event: AgentEvent): void {
  for (const observer of observers ?? []) {
    try {
      observer(event);
    } catch {
      // Rendering is best effort; the result still carries everything.
    }
  }
}

/**
 * Tells `emit` of each refusal of the sandbox's network gate while a run goes, and counts them; `stop` ends
 * the watch and gives the result's part.
 */
export function watchRefusals(
  network: ToolNetwork | undefined | Promise<ToolNetwork | undefined>,
  emit: AgentObserver,
  turn: () => number,
): { stop(): Pick<AgentResult, 'refusedHosts'> } {
  const tally = new Map<string, RefusedHost>();
  let stopped = false;
  let unwatch: (() => void) | undefined;
  const watch = (found: ToolNetwork | undefined) => {
    if (stopped) return;
    unwatch = found?.watch(({ host, port, reason, allow }) => {
      const allowing = allow ? { allow } : {};
      countRefusal(tally, { host, port, ...allowing });
      emit({ type: 'network_refused', turn: turn(), host, port, reason, ...allowing });
    });
  };
  // A sandbox still being built: its network is watched once it is (no command runs before).
  if (network instanceof Promise) network.then(watch, () => undefined);
  else watch(network);
  return {
    stop() {
      stopped = true;
      unwatch?.();
      return tally.size > 0 ? { refusedHosts: refusedHosts(tally) } : {};
    },
  };
}

/** One run of verify_command. */
export interface VerifyReport {
  command: string;
  passed: boolean;
  /** 1-based round, of `attempts`. */
  round: number;
  attempts: number;
  exitCode: number | null;
  timedOut: boolean;
  aborted: boolean;
  durationMs: number;
  /** The end of its output, redacted. */
  outputTail: string;
}

export type NudgeKind =
  | 'todo_reminder'
  | 'open_items'
  | 'continue'
  | 'more_tokens'
  | 'context_cleared'
  | 'context_compacted'
  | 'verify_failed'
  | 'review'
  | 'maintainer'
  | 'tools_joined';

/** A block of a model response as observers get it: a thinking block keeps only its type, never its text. */
export interface ResponseBlock {
  type: string;
  text?: string;
  id?: string;
  name?: string;
  input?: unknown;
}

export type AgentEvent =
  | { type: 'turn_start'; turn: number }
  /** What this request adds to the conversation: the messages since the last request. */
  | { type: 'request'; turn: number; messages: readonly MessageParam[] }
  | {
      type: 'response';
      turn: number;
      stopReason: string | null;
      content: readonly ResponseBlock[];
      usage: Usage;
    }
  | { type: 'assistant_text'; turn: number; text: string }
  | { type: 'todos'; turn: number; items: readonly TodoItem[] }
  | {
      type: 'tool';
      turn: number;
      name: string;
      input: unknown;
      output: string;
      isError: boolean;
      durationMs: number;
      /** A command's exit code (bash): null when it was killed; absent for the other tools. */
      exitCode?: number | null;
    }
  | { type: 'nudge'; turn: number; kind: NudgeKind; text: string }
  | { type: 'verify'; turn: number; report: VerifyReport }
  /**
   * A compaction on the server: `summarized` when it brought a summary (the history now starts with its
   * block), false when it came back without one or failed (a no-op: the run goes on, clearing if need be).
   * `usage`: the compaction's own tokens and, at a threshold, the reply's.
   */
  | {
      type: 'compaction';
      turn: number;
      kind: CompactionKind;
      summarized: boolean;
      stopReason: string | null;
      usage?: Usage;
    }
  /** The network gate refused a request of the tools' (its host, port and why; never a path or a body). */
  | { type: 'network_refused'; turn: number; host: string; port: number; reason: string; allow?: string }
  | { type: 'turn_end'; turn: number; stopReason: string | null; usage: Usage; total: Usage; costUsd: number }
  /**
   * The task tool started a helper (helpers/): its session, kind and title, and the id of the item the
   * parent had in progress then, under which the views nest the helper's list.
   */
  | {
      type: 'helper_start';
      turn: number;
      session: string;
      kind: HelperKind;
      description: string;
      under?: string;
    }
  /** An event of a helper's own run, under its session id; its `end` is the helper's end. */
  | { type: 'helper'; session: string; event: AgentEvent }
  | { type: 'end'; result: AgentResult };

/** `explore`: read-only tools, side by side with other explorers; `edit`: every tool, alone. */
export type HelperKind = 'explore' | 'edit';

export type AgentObserver = (event: AgentEvent) => void;
