// What the user turn after a compaction says: the summary holds what the run learned, and this holds what the
// loop's own records know for certain (the task as given, the list from the TodoManager, the maintainer's
// word during the run, the files changed so far), so none of it depends on what the summary kept.
import { renderPlain, type TodoItem } from '../todo/todos.js';

export interface Restatement {
  /** The first message of the run: the task and everything given with it. */
  firstMessage: string;
  items: readonly TodoItem[];
  /** What the maintainer said during the run (edits of the checklist), oldest first. */
  maintainer: readonly string[];
  /**
   * The files changed so far with their lines added and removed, as delivery counts them; undefined: none;
   * null: not known here (a run without delivery, the CLI).
   */
  files: string | undefined | null;
}

/** The list as it stands, with the item in progress and what is being done for it. */
export function listAsItStands(items: readonly TodoItem[]): string {
  const doing = items.find((item) => item.status === 'in_progress');
  const now = doing ? `\nIn progress: #${doing.id} (${doing.activeForm ?? doing.text})` : '';
  return `${renderPlain(items)}${now}`;
}

export function restatement({ firstMessage, items, maintainer, files }: Restatement): string {
  const parts = [
    '<context-note>The conversation so far was compacted into the summary above, written by you. What follows is',
    "restated from the run's own records and is exact: the request as it was first given, your todo list as it",
    "stands, the maintainer's word during the run and the files changed so far. Carry on with the item in",
    'progress (or the next open one); read a file again before you edit it.</context-note>',
  ].join(' ');
  const sections = [
    parts,
    `<original-request>\n${firstMessage}\n</original-request>`,
    `Your todo list, as it stands:\n\n${listAsItStands(items)}`,
    maintainer.length > 0
      ? `The maintainer's edits of the checklist during this run, oldest first:\n\n${maintainer.map((text) => `- ${text.replace(/\n/g, '\n  ')}`).join('\n')}`
      : 'The maintainer has not edited the checklist during this run.',
    files === null
      ? '`git status` and `git diff` show the files changed so far.'
      : files
        ? `Files changed so far, with lines added (+) and removed (−):\n${files}`
        : 'No file has been changed so far.',
  ];
  return sections.join('\n\n');
}
