// The commit's message: whose work it is and what it did. The subject is the task, the body the completed
// items, the trailers the maintainer who asked and the run that did it.
import type { TodoItem } from '../../agent/todo/todos.js';

export interface CommitMessageParts {
  task: string;
  items: readonly TodoItem[];
  /** The maintainer who asked: GitHub's login and numeric id, for the noreply address GitHub links to them. */
  requester?: { login: string; id: number };
  runUrl?: string;
}

/** Git's own convention, and what GitHub shows in full on one line. */
export const MAX_SUBJECT_CHARS = 72;

export function commitMessage({ task, items, requester, runUrl }: CommitMessageParts): string {
  const done = items.filter((item) => item.status === 'completed').map((item) => `- ${oneLine(item.text)}`);
  const trailers = [
    ...(runUrl ? [`Workflow-run: ${runUrl}`] : []),
    ...(requester ? [`Co-authored-by: ${requester.login} <${noreplyEmail(requester)}>`] : []),
  ];
  return [
    subjectOf(task),
    ...(done.length ? [done.join('\n')] : []),
    ...(trailers.length ? [trailers.join('\n')] : []),
  ].join('\n\n');
}

/** `<id>+<login>@users.noreply.github.com`: the address GitHub attributes to the account. */
export function noreplyEmail({ login, id }: { login: string; id: number }): string {
  return `${id}+${login}@users.noreply.github.com`;
}

/** The task's first line, cut at a word to at most 72 characters (a lone word too long is cut with '…'). */
export function subjectOf(task: string): string {
  const line = oneLine(task.split('\n').find((l) => l.trim()) ?? '') || 'todo-agent changes';
  if (line.length <= MAX_SUBJECT_CHARS) return line;
  const room = line.slice(0, MAX_SUBJECT_CHARS - 1);
  const cut = room.lastIndexOf(' ');
  return `${(cut > 0 ? room.slice(0, cut) : room).replace(/[\s,;:.-]+$/, '')}…`;
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}
