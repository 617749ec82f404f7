// The pull request description: what it closes, the list and its checks, the files it changes, the summary.
import { type AgentResult } from '../../agent/events.js';
import { promptTokens } from '../../model/usage.js';
import type { HeldBack } from '../held-back.js';
import { unverifiedItems } from '../../agent/todo/todos.js';
import { renderTaskList, verifyLine } from '../../github/checklist/render.js';
import { codeSpan, escapeMarkdown, markdownSentence, safeUrl } from '../../text/markdown.js';
import { inertMarkdown } from '../../text/inert-markdown.js';
import { closesLine } from '../../github/closes-line.js';
import { patchDetails } from '../../github/checklist/kept-patch.js';
import type { WorkflowPatch } from '../workflow-files.js';

/** A file the pull request changes, as its description lists it. */
export interface ChangedFile {
  path: string;
  status: string;
  additions: number;
  deletions: number;
}

/** A workflow patch over this is not attached (the run record has it): a description stops at 65,536 characters. */
export const MAX_PULL_PATCH_CHARS = 30_000;

export interface PullBodyParts {
  /** The issue the pull request closes (none for a run on a pull request). */
  closes?: number;
  result: AgentResult;
  /** The live checklist comment on the issue. */
  checklistUrl?: string;
  /** The files the branch changes, as our git counts them. */
  files?: { files: readonly ChangedFile[]; more: boolean };
  /** What the run made but the pull request leaves out, and why. */
  heldBack?: readonly HeldBack[];
  /** Why the commit was pushed with git, unsigned, although signed commits are on. */
  unsignedBecause?: string;
  /** The workflow files the token may not change: left out, their change attached as a patch. */
  workflowPatch?: WorkflowPatch;
}

export function pullBody({
  closes,
  result,
  checklistUrl,
  files,
  heldBack = [],
  unsignedBecause,
  workflowPatch,
}: PullBodyParts): string {
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
    ...(workflowPatch ? ['### Not in this pull request', workflowPatchSection(workflowPatch)] : []),
    ...(heldBack.length > 0 ? ['### Held back', heldBackSection(heldBack)] : []),
    ...(unsignedBecause
      ? [`_The commit was pushed with git, so GitHub did not sign it: ${markdownSentence(unsignedBecause)}._`]
      : []),
    ...(result.refusedHosts?.length ? ['### Blocked network requests', blockedSection(result)] : []),
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

/** Every host the network gate refused the tools, with how often, and how a maintainer allows one. */
function blockedSection({ refusedHosts = [] }: AgentResult): string {
  return [
    "The tools' network gate refused these hosts (`tool_network: allowlist`); a host the work needs is allowed by adding it to the workflow's `allowed_hosts` input:",
    refusedHosts.map(({ host, count }) => `- ${codeSpan(host)} ×${count}`).join('\n'),
  ].join('\n\n');
}

/** What the run made that is not in the pull request: each folder or file once, with why. */
function heldBackSection(heldBack: readonly HeldBack[]): string {
  const lines = heldBack.map(({ path, why, files }) => {
    const count = files > 1 ? ` (${files} files)` : '';
    return `- ${codeSpan(path)}${count}: ${markdownSentence(why)}`;
  });
  return [
    'The run made these, and they are not committed (generated environments, caches and large new files never are):',
    ...lines,
  ].join('\n');
}

/** The workflow files this change leaves out: the rule, what to do, and their change as a patch. */
function workflowPatchSection({ paths, refusal, refused, patch }: WorkflowPatch): string {
  const files = paths.map((path) => codeSpan(path)).join(', ');
  const why = `${markdownSentence(refusal.rule)}${refused ? ' (GitHub refused them)' : ''}`;
  const attached =
    patch.length <= MAX_PULL_PATCH_CHARS
      ? patchDetails(patch, 'The workflow change, as a patch (<code>git apply</code> it on this branch)')
      : `_Their change (${Math.ceil(patch.length / 1024)} KB as a patch) is too large to attach here; it is kept in the run's record._`;
  return [
    `The run also changed ${files}, which this pull request leaves out: ${why}. ${markdownSentence(refusal.advice)}`,
    attached,
  ].join('\n\n');
}
