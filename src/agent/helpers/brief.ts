// What a helper is told, and what its parent gets back: the helper's task with its role, and its answer as
// the task tool's result, cut to size.
import type { AgentResult, HelperKind } from '../events.js';
import { countDone } from '../todo/todos.js';

/** The most characters of a helper's answer the parent is given (the run record keeps it whole). */
export const MAX_ANSWER_CHARS = 12_000;

const ROLES: Record<HelperKind, string> = {
  explore:
    'You can only read: read_file, the github tool, and bash in a read-only copy of the workspace (nothing ' +
    'you run can change a file there; where there is no sandbox you have no bash). write_file and edit_file ' +
    'are not available.',
  edit:
    'You may change files in the workspace; no other helper runs beside you. The main agent reviews your ' +
    'change and delivers it: do not commit, push or switch branches.',
};

/** The helper's task: its role, its limits, then what the main agent asked of it. */
export function helperTask(kind: HelperKind, prompt: string, maxTurns: number): string {
  return [
    'You are a helper of todo-agent: the main agent handed you one part of its work and waits for your answer.',
    `Your todo list is your own (the main agent keeps its own list): plan with it, and keep it current. ${ROLES[kind]}`,
    `You have at most ${maxTurns} turns. When you are done, reply with your answer: what you found or ` +
      'changed, precisely (paths, line numbers, commands and what they showed). That reply is all the main ' +
      'agent sees of your work.',
    `The main agent asks:\n\n${prompt}`,
  ].join('\n\n');
}

/** The task tool's result: how the helper ended, its list in one line, and its answer, cut to size. */
export function helperAnswer(description: string, kind: HelperKind, result: AgentResult, note = ''): string {
  const list =
    result.todos.length > 0 ? `, ${countDone(result.todos)} of ${result.todos.length} items done` : '';
  const head =
    `Helper "${description}" (${kind}) ended ${result.status}: ${result.reason} ` +
    `(${result.turns} turns, ${result.toolCalls} tool calls${list}).${note}`;
  const answer = result.lastText.trim() || '(it gave no answer)';
  const chars = Array.from(answer);
  const shown =
    chars.length > MAX_ANSWER_CHARS
      ? `${chars.slice(0, MAX_ANSWER_CHARS).join('')}\n[… ${chars.length - MAX_ANSWER_CHARS} more characters of the answer cut]`
      : answer;
  return `${head}\n\nIts answer:\n${shown}`;
}
