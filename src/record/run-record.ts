// The run record: a JSON Lines file of what a run did, to read, keep or attach to a bug report. Written by an
// observer of the agent's events, plus what the wiring adds around them (who asked, the delivery, the result).
// Every string is redacted by the one redactor on its way to the file (see json-lines.ts).
import type { LeftOut } from '../delivery/held-back.js';
import type { AgentEvent, AgentObserver } from '../agent/events.js';
import type { MessageParam } from '../model/messages.js';
import { openJsonLines, type JsonLines } from './json-lines.js';

/** The record's format; a reader checks it on the first line. */
export const RECORD_VERSION = 1;

/** The first line: what was asked, where and of which model. */
export interface RecordStart {
  task: string;
  /** How the run was asked for: `issue_comment`, `label`, `cli`… */
  source: string;
  model?: string;
  /** The issue or pull request, as `owner/repo#n`. */
  thread?: string;
  runUrl?: string;
}

/** What became of the work: committed, held back, pushed, refused (with the patch), the pull request. */
export interface RecordDelivery {
  /** Files in the commits the run made, as `git diff --name-status` lists them. */
  committed: string[];
  /**
   * What the commit left out (what .gitignore keeps out is not listed): each folder held back whole once,
   * with its count and why, then other files one by one (a credentials file).
   */
  heldBack: LeftOut[];
  /** Where the work was pushed: a branch of this repository, or a contributor's (`owner/repo:branch`). */
  pushed?: string;
  pr?: { number: number; url: string };
  /** The push was refused or failed: why, and the work as a patch, so that it is not lost. */
  refused?: { reason: string; patch: string };
  /**
   * Workflow files the token may not change, left out of a delivery that went ahead: why, and their patch
   * (the delivery's `WorkflowPatch`; unlike `heldBack`, this work was delivered, as a patch).
   */
  withheld?: { paths: string[]; reason: string; patch: string };
  note?: string;
}

export interface RecordResult {
  status: string;
  reason?: string;
}

export interface RunRecord {
  readonly path: string;
  /** Add to the agent's observers. */
  readonly observer: AgentObserver;
  start(start: RecordStart): void;
  /** A step of the wiring worth keeping (waiting in the queue, a decline), in one sentence. */
  note(text: string): void;
  delivery(delivery: RecordDelivery): void;
  /** The run's outcome; only the first call writes (the job knows it first, the action's wiring as a fallback). */
  result(result: RecordResult): void;
  /** Resolves once every line so far is on disk (to read the file back). */
  flush(): Promise<void>;
  close(): Promise<void>;
}

/** Opens the record at `path` now (a bad path fails before the run); `redact` is the action's redactor. */
export function openRunRecord(path: string, redact: (text: string) => string): RunRecord {
  const lines: JsonLines = openJsonLines(path, redact);
  let ended = false;
  return {
    path,
    observer: (event) => {
      const line = recordLine(event);
      if (line) lines.write(line);
    },
    start: (start) => lines.write({ type: 'start', v: RECORD_VERSION, ...start }),
    note: (text) => lines.write({ type: 'note', text }),
    delivery: (delivery) => lines.write({ type: 'delivery', ...delivery }),
    result: (result) => {
      if (ended) return;
      ended = true;
      lines.write({ type: 'result', ...result });
    },
    flush: () => lines.flush(),
    close: () => lines.close(),
  };
}

/**
 * The line an agent event becomes. A request keeps only its user turns (the assistant's are the responses
 * before it), and their tool results point to the tool lines that hold them; model text is in the response.
 */
function recordLine(event: AgentEvent): object | undefined {
  switch (event.type) {
    case 'assistant_text':
      return undefined;
    case 'request':
      return { ...event, messages: event.messages.filter((m) => m.role === 'user').map(userTurn) };
    case 'helper': {
      // A helper's events stay under its own session id, each as the run's own would be.
      const line = recordLine(event.event);
      return line && { type: 'helper', session: event.session, event: line };
    }
    default:
      return event;
  }
}

function userTurn(message: MessageParam): object {
  if (typeof message.content === 'string') return message;
  return {
    ...message,
    content: message.content.map((block) =>
      block.type === 'tool_result'
        ? {
            type: 'tool_result',
            tool_use_id: block.tool_use_id,
            content: '(the tool line holds the result)',
            ...(block.is_error ? { is_error: true } : {}),
          }
        : block,
    ),
  };
}
