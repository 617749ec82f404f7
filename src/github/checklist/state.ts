// The checklist comment's saved state: a hidden agent-state line holding the list and what a later run
// needs to pick up where this one stopped, written so that no text in it can close the comment.
import { z } from 'zod';
import { validateTodos, type TodoItem } from '../../agent/todo/todos.js';
import { redactAndCut } from '../../text/redact.js';
import { inertJson } from '../../text/inert-json.js';

export const STATE_MARKER = '<!-- agent-state';
export const STATE_VERSION = 1;

/** What a later run needs to continue; spread into the agent-state JSON. */
export interface ResumeState {
  /** The issue (or pull request) the run worked on: a state is only ever read back on that issue. */
  issue?: number;
  branch?: string;
  runId?: string;
  base?: string;
  [key: string]: unknown;
}

export interface AgentState extends ResumeState {
  v: number;
  items: TodoItem[];
  /** How much of each item the comment showed, when the action shortened them to fit (else absent). */
  cut?: number;
}

/** Reads the agent-state line of a comment body; undefined when it is missing or garbled. */
export function parseAgentState(body: string): AgentState | undefined {
  const start = body.lastIndexOf(STATE_MARKER);
  if (start === -1) return undefined;
  const end = body.indexOf('-->', start);
  if (end === -1) return undefined;
  try {
    const parsed = agentStateSchema.parse(JSON.parse(body.slice(start + STATE_MARKER.length, end)));
    return { ...parsed, items: validateTodos(parsed.items) };
  } catch {
    return undefined;
  }
}

const agentStateSchema = z.looseObject({
  v: z.literal(STATE_VERSION),
  items: z.array(z.unknown()),
  issue: z.number().int().optional(),
  branch: z.string().optional(),
  runId: z.string().optional(),
  base: z.string().optional(),
  task: z.string().optional(),
  cut: z.number().int().positive().optional(),
});

/**
 * The hidden line that saves the list and `resume`, each text redacted and cut to `maxText`; `cut` records
 * what the shown list lines were shortened to, when they were, so that an edit is read against them as
 * written.
 */
export function stateLine(
  todos: readonly TodoItem[],
  saved: ResumeState,
  maxText: number,
  cut?: number,
): string {
  const { v: _v, items: _items, cut: _cut, ...resume } = saved;
  const stored = (text: string) => redactAndCut(text, maxText + 1);
  const items = todos.map(({ id, text, status, activeForm }) => ({
    id,
    text: stored(text),
    status,
    ...(activeForm === undefined ? {} : { activeForm: stored(activeForm) }),
  }));
  const shortened = cut === undefined ? {} : { cut };
  return `${STATE_MARKER} ${commentSafeJson({ v: STATE_VERSION, items, ...resume, ...shortened })} -->`;
}

/**
 * JSON that cannot end the HTML comment around it: inside string literals `<`, `>`, `&` and `-` become
 * \u escapes (still valid JSON). Outside strings JSON has no `<`/`>`, and `-` appears only as a sign.
 */
export function commentSafeJson(value: unknown): string {
  return inertJson(value, /[<>&-]/g);
}
