// The pull request description: what it closes, the list and its checks, the files it changes, the summary.
import { type AgentResult } from '../agent/events.js';
import { promptTokens } from '../model/usage.js';
import type { ChangedFile } from '../github/api.js';
import { unverifiedItems } from '../agent/todos.js';
import { renderTaskList, verifyLine } from '../github/checklist/render.js';
import { codeSpan, escapeMarkdown, safeUrl } from '../text/markdown.js';
import { inertMarkdown } from '../text/inert-markdown.js';
import { closesLine } from '../github/closes-line.js';

export interface PullBodyParts {
  /** The issue the pull request closes (none for a run on a pull request). */
  closes?: number;
  result: AgentResult;
  /** The live checklist comment on the issue. */
  checklistUrl?: string;
  /** The files as GitHub counts them, once the branch is pushed and the pull request exists. */
  files?: { files: readonly ChangedFile[]; more: boolean };
}

export function pullBody({ closes, result, checklistUrl, files }: PullBodyParts): string {
  const usage = result.usage;
  const link = checklistUrl && safeUrl(checklistUrl);
  const unverified = unverifiedItems(result.todos);
  return [
    ...(closes === undefined ? [] : [closesLine(closes)]),
    ...(link ? [`The [checklist comment](${link}) shows the list as the agent kept it.`] : []),
    '### Todo list',
    renderTaskList(result.todos),
    ...(result.verify ? [verifyLine(result.verify)] : []),
    ...(unverified.length > 0
      ? [
          '### Checks that did not run',
          unverified
            .map(({ text, reason }) => `- ${escapeMarkdown(text)}: ${escapeMarkdown(reason)}`)
            .join('\n'),
        ]
      : []),
    ...(files ? ['### Files changed', filesSection(files.files, files.more)] : []),
    '### Summary',
    inertMarkdown(result.lastText) || '_The model left no summary._',
    `<sub>${result.turns} turns · ${result.toolCalls} tool calls · ${promptTokens(usage)} input tokens (${usage.cache_read_input_tokens} cached), ${usage.output_tokens} output tokens · ~$${result.costUsd.toFixed(2)} · opened by todo-agent</sub>`,
  ].join('\n\n');
}

/** One line per file with its added and removed lines, and a total. */
function filesSection(files: readonly ChangedFile[], more: boolean): string {
  if (files.length === 0) return '_No files changed._';
  const added = files.reduce((sum, file) => sum + file.additions, 0);
  const removed = files.reduce((sum, file) => sum + file.deletions, 0);
  const count = `${files.length}${more ? '+' : ''} file${files.length === 1 ? '' : 's'}`;
  const lines = files.map((file) => {
    const status = file.status === 'modified' ? '' : ` (${file.status})`;
    return `- ${codeSpan(file.path)} +${file.additions} −${file.deletions}${status}`;
  });
  const rest = more ? ['- … and more: see the Files changed tab'] : [];
  return [`${count}, +${added} −${removed} lines${more ? ' in those listed' : ''}`, ...lines, ...rest].join(
    '\n',
  );
}
