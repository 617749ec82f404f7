// The checklist comment: the todo list as a Markdown task list, heading, progress, footer, and the saved
// state line (state.ts) at its end. Pure functions apart from the shared redactor.
import { type RefusedHost, type VerifyReport } from '../../agent/events.js';
import { stateLine, type ResumeState } from './state.js';
import { promptTokens, type Usage } from '../../model/usage.js';
import { describeFailure } from '../../agent/verify.js';
import { countDone } from '../../agent/todo/todos.js';
import type { TodoItem } from '../../agent/todo/todos.js';
import { redactor } from '../../text/redact.js';
import { refusedWorkBlock, type RefusedWork } from './kept-patch.js';
import { helperLines, STATUS_MARK, type HelperView } from './helpers.js';
import {
  shortNumber,
  formatDuration,
  formatCost,
  shorten,
  firstLine,
  safeUrl,
  codeSpan,
  escapeMarkdown,
  markdownSentence,
} from '../../text/markdown.js';

export type ChecklistPhase =
  | 'planning'
  | 'working'
  | 'completed'
  | 'partial'
  | 'incomplete'
  | 'failed'
  | 'cancelled'
  | 'refused'
  | 'planned';

export interface ChecklistState {
  task: string;
  items: readonly TodoItem[];
  phase: ChecklistPhase;
  turn: number;
  usage: Usage;
  costUsd?: number;
  /** Compactions on the server that brought a summary (the context kept inside the window). */
  compactions?: number;
  elapsedMs?: number;
  /** Link to the workflow run. */
  runUrl?: string;
  branch?: { name: string; url?: string };
  pr?: { number: number; url: string };
  /** The comment prefix that starts a run, for the "how to continue" line (default `/agent`). */
  trigger?: string;
  /** One readable sentence: why it stopped, the error, "no changes", how to continue. */
  note?: string;
  /** Which isolation the tools run in (root, sudo, rootless user namespaces, off), for the footer. */
  sandbox?: string;
  /** The MCP servers and how each fared (`memory (9 tools), docs (not available)`), for the footer. */
  mcp?: string;
  /** The latest round of verify_command, if it ran. */
  verify?: VerifyReport;
  /** The run record's file name, once the run ended: the footer says where to find it. */
  record?: string;
  /** Work GitHub refused (or that could not be pushed): why, and the change as a patch. */
  refused?: RefusedWork & { attach?: boolean };
  /** The hosts the network gate refused the tools, with how often. */
  blockedHosts?: readonly RefusedHost[];
  /** The task tool's helpers, nested under the items they were started from. */
  helpers?: readonly HelperView[];
  resume: ResumeState;
}

const TASK_MAX_CHARS = 120;
const NOTE_MAX_CHARS = 300;
/** How much of an item's text the comment shows, unless the whole comment would be too long. */
export const ITEM_MAX_CHARS = 500;
const BAR_CELLS = 20;

const HEADINGS: Record<ChecklistPhase, string> = {
  planning: '🤖 todo-agent is working on:',
  working: '🤖 todo-agent is working on:',
  completed: `${STATUS_MARK.completed} todo-agent finished:`,
  partial: '⚠️ todo-agent finished, with a part left out:',
  incomplete: `${STATUS_MARK.incomplete} todo-agent stopped:`,
  failed: `${STATUS_MARK.failed} todo-agent failed:`,
  cancelled: `${STATUS_MARK.cancelled} todo-agent was cancelled:`,
  refused: '🚫 todo-agent declined:',
  planned: `${STATUS_MARK.planned} plan`,
};

const REFUSED_HEADING = '🚫 GitHub refused the delivery of:';
const UNPUSHED_HEADING = '⚠️ todo-agent could not deliver:';

/** GitHub refuses comment bodies longer than this. */
export const MAX_BODY_CHARS = 65_536;

/**
 * How much of each item text is shown and stored, and whether running helpers show their lists: near the
 * limit their lists fold to one line first, then the tighter steps shorten absurdly long lists.
 */
interface TextLimits {
  shown: number;
  stored: number;
  foldHelpers: boolean;
}
const LIMIT_STEPS: readonly TextLimits[] = [
  { shown: ITEM_MAX_CHARS, stored: Infinity, foldHelpers: false },
  { shown: ITEM_MAX_CHARS, stored: Infinity, foldHelpers: true },
  { shown: 100, stored: 1000, foldHelpers: true },
  { shown: 40, stored: 200, foldHelpers: true },
];

export function renderChecklist(state: ChecklistState): string {
  let body = '';
  for (const limits of LIMIT_STEPS) {
    body = renderWithin(state, limits);
    if (body.length <= MAX_BODY_CHARS) break;
  }
  // A patch that does not fit beside the list stays in the run's record only.
  if (body.length > MAX_BODY_CHARS && state.refused?.patch !== undefined) {
    return renderWithin({ ...state, refused: { ...state.refused, attach: false } }, LIMIT_STEPS.at(-1)!);
  }
  return body;
}

function renderWithin(state: ChecklistState, limits: TextLimits): string {
  const task = escapeMarkdown(shorten(state.task, TASK_MAX_CHARS));
  const trigger = (state.trigger ?? '/agent').replace(/`/g, '');
  // A plan's heading says how to run it; the task follows on its own line.
  const blocks =
    state.phase === 'planned'
      ? [`### ${HEADINGS.planned} — comment \`${trigger} go\` to run it`, task]
      : [`### ${headingOf(state)} ${task}`];
  const note = markdownSentence(shorten(firstLine(redactor.redact(state.note ?? '')), NOTE_MAX_CHARS));
  if (note) blocks.push(note);
  if (state.phase === 'planning') blocks.push('_planning…_');
  const helpers = state.helpers ?? [];
  const nested = (shown: readonly HelperView[], indent: string) =>
    helperLines(shown, { indent, folded: limits.foldHelpers, shown: limits.shown });
  if (state.items.length > 0) {
    blocks.push(progressLine(state.items));
    const lines = state.items.flatMap((item) => [
      itemLine(item, limits.shown),
      ...nested(
        helpers.filter((helper) => helper.under === item.id),
        '  ',
      ),
    ]);
    blocks.push(lines.join('\n'));
  }
  // Helpers started from no item of the list (none was in progress, or it was removed since) follow it.
  const ids = new Set(state.items.map((item) => item.id));
  const loose = helpers.filter((helper) => helper.under === undefined || !ids.has(helper.under));
  if (loose.length > 0) blocks.push(nested(loose, '').join('\n'));
  if (state.verify && !state.verify.passed && state.phase !== 'working')
    blocks.push(verifyOutput(state.verify));
  if (state.refused) blocks.push(refusedWorkBlock(state.refused, state.refused.attach !== false));
  if (state.phase === 'incomplete') blocks.push(continueLine(state.branch, trigger));
  const footer = footerLine(state);
  return `${blocks.join('\n\n')}\n\n${footer ? `${footer}\n` : ''}${stateLine(state.items, state.resume, limits.stored, limits.shown === ITEM_MAX_CHARS ? undefined : limits.shown)}`;
}

/** The heading's words: work GitHub refused (or that could not be pushed) says so before all else. */
function headingOf({ phase, refused }: ChecklistState): string {
  if (refused && (phase === 'completed' || phase === 'incomplete'))
    return refused.rule ? REFUSED_HEADING : UNPUSHED_HEADING;
  return HEADINGS[phase];
}

/** Whether a checklist body is that of a run still going (planning or working), by its heading. */
export function isRunning(body: string): boolean {
  return body.startsWith(`### ${HEADINGS.working} `);
}

/** The task-list lines alone (for the pull request body), one per item in list order. */
export function renderTaskList(items: readonly TodoItem[]): string {
  if (items.length === 0) return '_No todos._';
  return items.map((item) => itemLine(item, ITEM_MAX_CHARS)).join('\n');
}

// ---- the visible parts ----

function progressLine(items: readonly TodoItem[]): string {
  const done = countDone(items);
  const ratio = done / items.length;
  const filled = Math.round(ratio * BAR_CELLS);
  const bar = '█'.repeat(filled) + '·'.repeat(BAR_CELLS - filled);
  return `**${done} of ${items.length} done** · \`${bar}\` ${Math.round(ratio * 100)}%`;
}

/** An item as the comment shows it. */
export function itemLine(item: TodoItem, maxChars = ITEM_MAX_CHARS): string {
  const shown = (text: string) => escapeMarkdown(shorten(text, maxChars));
  const text = shown(item.text);
  if (item.status === 'completed') return `- [x] ${text}`;
  if (item.status === 'pending') return `- [ ] ${text}`;
  const active = item.activeForm && shown(item.activeForm);
  return active ? `- [ ] 🔄 **${active}** — ${text}` : `- [ ] 🔄 **${text}**`;
}

function continueLine(branch: ChecklistState['branch'], trigger: string): string {
  const where = branch ? `The work so far is on branch ${branchLink(branch)}. ` : '';
  return `${where}Comment \`${trigger} continue\` to pick up where it stopped.`;
}

/** `✅ npm test passed in 41 s (3 rounds)`, or how it failed: the verify_command result in one line. */
export function verifyLine(report: VerifyReport): string {
  const command = codeSpan(redactor.redact(report.command));
  const rounds = report.round === 1 ? '' : ` (${report.round} rounds)`;
  if (report.passed) return `✅ ${command} passed in ${formatDuration(report.durationMs)}${rounds}`;
  return `❌ ${command} failed: ${describeFailure(report)}, round ${report.round} of ${report.attempts}`;
}

/** The end of a failed verify_command's output, folded away. */
export function verifyOutput(report: VerifyReport): string {
  const output = redactor.redact(report.outputTail).trim() || '(no output)';
  const longestRun = Math.max(0, ...(output.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(Math.max(3, longestRun + 1));
  const summary = `Output of ${escapeMarkdown(redactor.redact(report.command))} (its end)`;
  return `<details><summary>${summary}</summary>\n\n${fence}\n${output}\n${fence}\n\n</details>`;
}

function footerLine(state: ChecklistState): string {
  const parts: string[] = [];
  if (state.verify) parts.push(verifyLine(state.verify));
  if (state.turn > 0) parts.push(`turn ${state.turn}`);
  const tokens = tokensPart(state.usage);
  if (tokens) parts.push(tokens);
  if (state.costUsd !== undefined) parts.push(formatCost(state.costUsd));
  if (state.compactions) parts.push(`${state.compactions} compaction${state.compactions === 1 ? '' : 's'}`);
  if (state.elapsedMs !== undefined) parts.push(formatDuration(state.elapsedMs));
  const runUrl = state.runUrl && safeUrl(state.runUrl);
  if (runUrl) parts.push(`[workflow run](${runUrl})`);
  if (state.record) parts.push(`record ${codeSpan(state.record)} in the run's summary and artifacts`);
  if (state.branch) parts.push(`branch ${branchLink(state.branch)}`);
  if (state.pr) parts.push(`PR #${state.pr.number}`);
  if (state.sandbox) parts.push(`sandbox: ${escapeMarkdown(state.sandbox)}`);
  if (state.mcp) parts.push(`MCP: ${escapeMarkdown(state.mcp)}`);
  if (state.blockedHosts?.length) parts.push(`network gate refused ${blockedList(state.blockedHosts)}`);
  return parts.length > 0 ? `<sub>${parts.join(' · ')}</sub>` : '';
}

/** At most this many refused hosts are named in the footer; the others are counted. */
const BLOCKED_NAMED = 10;

/** `host` ×count for each refused host, most refused first. */
function blockedList(hosts: readonly RefusedHost[]): string {
  const shown = hosts.slice(0, BLOCKED_NAMED).map(({ host, count }) => `${codeSpan(host)} ×${count}`);
  const more = hosts.length - shown.length;
  return [...shown, ...(more > 0 ? [`${more} more`] : [])].join(', ');
}

function tokensPart(usage: Usage): string {
  const cached = usage.cache_read_input_tokens;
  const input = promptTokens(usage);
  if (input === 0 && usage.output_tokens === 0) return '';
  const cachedPart = cached > 0 ? ` (${shortNumber(cached)} cached)` : '';
  return `${shortNumber(input)} tokens in${cachedPart}, ${shortNumber(usage.output_tokens)} out`;
}

function branchLink(branch: { name: string; url?: string }): string {
  const code = codeSpan(branch.name);
  const url = branch.url && safeUrl(branch.url);
  return url ? `[${code}](${url})` : code;
}
