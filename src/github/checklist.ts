// The checklist comment: the todo list as a Markdown task list, with a hidden agent-state line that a
// later run reads back to pick up where this one stopped. Pure functions apart from the shared redactor.
import { z } from 'zod';
import { promptTokens, type Usage, type VerifyReport } from '../agent/events.js';
import { describeFailure } from '../agent/verify.js';
import { countDone, validateTodos } from '../agent/todos.js';
import type { TodoItem } from '../agent/todos.js';
import { redactAndCut, redactor } from '../redact.js';
import { inertJson } from '../text/inert-json.js';

export const STATE_MARKER = '<!-- agent-state';
export const STATE_VERSION = 1;

export type ChecklistPhase =
  'planning' | 'working' | 'completed' | 'incomplete' | 'failed' | 'cancelled' | 'refused' | 'planned';

/** What a later run needs to continue; spread into the agent-state JSON. */
export interface ResumeState {
  /** The issue (or pull request) the run worked on: a state is only ever read back on that issue. */
  issue?: number;
  branch?: string;
  runId?: string;
  base?: string;
  [key: string]: unknown;
}

export interface ChecklistState {
  task: string;
  items: readonly TodoItem[];
  phase: ChecklistPhase;
  turn: number;
  usage: Usage;
  costUsd?: number;
  elapsedMs?: number;
  /** Link to the workflow run. */
  runUrl?: string;
  branch?: { name: string; url?: string };
  pr?: { number: number; url: string };
  /** The comment prefix that starts a run, for the "how to continue" line (default `/agent`). */
  trigger?: string;
  /** One readable sentence: why it stopped, the error, "no changes", how to continue. */
  note?: string;
  /** The latest round of verify_command, if it ran. */
  verify?: VerifyReport;
  resume: ResumeState;
}

export interface AgentState extends ResumeState {
  v: number;
  items: TodoItem[];
}

const TASK_MAX_CHARS = 120;
const NOTE_MAX_CHARS = 300;
const ITEM_MAX_CHARS = 500;
const BAR_CELLS = 20;

const HEADINGS: Record<ChecklistPhase, string> = {
  planning: '🤖 todo-agent is working on:',
  working: '🤖 todo-agent is working on:',
  completed: '✅ todo-agent finished:',
  incomplete: '⏸ todo-agent stopped:',
  failed: '❌ todo-agent failed:',
  cancelled: '⏹ todo-agent was cancelled:',
  refused: '🚫 todo-agent declined:',
  planned: '📝 plan',
};

/** GitHub refuses comment bodies longer than this. */
export const MAX_BODY_CHARS = 65_536;

/** How much of each item text is shown and stored; tighter steps only for absurdly long lists. */
interface TextLimits {
  shown: number;
  stored: number;
}
const LIMIT_STEPS: readonly TextLimits[] = [
  { shown: ITEM_MAX_CHARS, stored: Infinity },
  { shown: 100, stored: 1000 },
  { shown: 40, stored: 200 },
];

export function renderChecklist(state: ChecklistState): string {
  let body = '';
  for (const limits of LIMIT_STEPS) {
    body = renderWithin(state, limits);
    if (body.length <= MAX_BODY_CHARS) break;
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
      : [`### ${HEADINGS[state.phase]} ${task}`];
  const note = escapeMarkdown(shorten(firstLine(redactor.redact(state.note ?? '')), NOTE_MAX_CHARS));
  if (note) blocks.push(note);
  if (state.phase === 'planning') blocks.push('_planning…_');
  if (state.items.length > 0) {
    blocks.push(progressLine(state.items));
    blocks.push(state.items.map((item) => itemLine(item, limits.shown)).join('\n'));
  }
  if (state.verify && !state.verify.passed && state.phase !== 'working')
    blocks.push(verifyOutput(state.verify));
  if (state.phase === 'incomplete') blocks.push(continueLine(state.branch, trigger));
  const footer = footerLine(state);
  return `${blocks.join('\n\n')}\n\n${footer ? `${footer}\n` : ''}${stateLine(state, limits.stored)}`;
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
});

function stateLine(state: ChecklistState, maxText: number): string {
  const { v: _v, items: _items, ...resume } = state.resume;
  const stored = (text: string) => redactAndCut(text, maxText + 1);
  const items = state.items.map(({ id, text, status, activeForm }) => ({
    id,
    text: stored(text),
    status,
    ...(activeForm === undefined ? {} : { activeForm: stored(activeForm) }),
  }));
  return `${STATE_MARKER} ${commentSafeJson({ v: STATE_VERSION, items, ...resume })} -->`;
}

/**
 * JSON that cannot end the HTML comment around it: inside string literals `<`, `>`, `&` and `-` become
 * \u escapes (still valid JSON). Outside strings JSON has no `<`/`>`, and `-` appears only as a sign.
 */
export function commentSafeJson(value: unknown): string {
  return inertJson(value, /[<>&-]/g);
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
  if (state.elapsedMs !== undefined) parts.push(formatDuration(state.elapsedMs));
  const runUrl = state.runUrl && safeUrl(state.runUrl);
  if (runUrl) parts.push(`[workflow run](${runUrl})`);
  if (state.branch) parts.push(`branch ${branchLink(state.branch)}`);
  if (state.pr) parts.push(`PR #${state.pr.number}`);
  return parts.length > 0 ? `<sub>${parts.join(' · ')}</sub>` : '';
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

// ---- formatting helpers ----

/** 950 → "950", 1234 → "1.2k", 14_200 → "14.2k", 12_000 → "12k", 3_400_000 → "3.4M". */
export function shortNumber(n: number): string {
  if (!Number.isFinite(n) || Math.abs(n) < 1000) return String(Math.round(n));
  const units: [number, string][] = [
    [1e3, 'k'],
    [1e6, 'M'],
    [1e9, 'B'],
  ];
  for (const [index, [size, suffix]] of units.entries()) {
    const value = n / size;
    const digits = Math.abs(value) < 100 ? 1 : 0;
    const rounded = Number(value.toFixed(digits));
    // 999_960 would round to "1000k": move on to the next unit instead.
    if (Math.abs(rounded) < 1000 || index === units.length - 1) return `${rounded}${suffix}`;
  }
  return String(n);
}

/** 42_000 → "42 s", 72_000 → "1 min 12 s", 3_900_000 → "1 h 5 min". */
export function formatDuration(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return seconds % 60 ? `${minutes} min ${seconds % 60} s` : `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  return minutes % 60 ? `${hours} h ${minutes % 60} min` : `${hours} h`;
}

function formatCost(usd: number): string {
  return usd > 0 && usd < 0.005 ? '<$0.01' : `$${usd.toFixed(2)}`;
}

/**
 * Redacted, then made a single line of at most `max` code points (plus "…"): redaction always comes before
 * the cut, which could otherwise split a secret so that neither the redactor here nor the API's sees it.
 */
function shorten(text: string, max: number): string {
  return redactAndCut(text, max + 1, (whole) => foldWhitespace(redactor.redact(whole)));
}

/** The first non-empty line: an error message without its stack trace. */
function firstLine(text: string): string {
  return text.split(/\r\n|[\n\r\u2028\u2029]/).find((line) => foldWhitespace(line) !== '') ?? '';
}

/** Line breaks, tabs and control characters become single spaces; the result is trimmed. */
function foldWhitespace(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\s\u0000-\u001f\u007f-\u009f]+/g, ' ').trim();
}

/** Only http(s) URLs, with the characters that could end a Markdown link destination encoded. */
export function safeUrl(url: string): string | undefined {
  if (!/^https?:\/\//i.test(url)) return undefined;
  return url.replace(/[\s()<>[\]`"'\\]/g, percentEncode);
}

function percentEncode(char: string): string {
  return Array.from(
    new TextEncoder().encode(char),
    (byte) => `%${byte.toString(16).toUpperCase().padStart(2, '0')}`,
  ).join('');
}

/** A code span that holds any text: the fence is longer than any backtick run inside. */
export function codeSpan(text: string): string {
  const inner = foldWhitespace(text);
  const longestRun = Math.max(0, ...(inner.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(longestRun + 1);
  const pad = inner.startsWith('`') || inner.endsWith('`') ? ' ' : '';
  return `${fence}${pad}${inner}${pad}${fence}`;
}

// ---- escaping model-written text ----

const ZERO_WIDTH_JOINER = '\u200d';
const ZERO_WIDTH_SPACE = '\u200b';
const HTML_ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;' };

/**
 * Makes text safe inside one line of Markdown: it renders as the same characters but cannot start a
 * block, emphasis, code, link, image, HTML, math or table cell, ping anyone, or turn into an autolink.
 * Issue references (`#123`) stay live. Secrets are redacted first: escaped (`ghp\_…`, `a@\u200dhost`),
 * the API's own redaction would no longer know them, yet they render as themselves.
 */
export function escapeMarkdown(text: string): string {
  return (
    foldWhitespace(redactor.redact(text))
      // Mentions and email autolinks: a zero-width joiner after '@' breaks both.
      .replace(/@/g, `@${ZERO_WIDTH_JOINER}`)
      // URL autolinks: GitHub links "scheme://" and "www."; a zero-width space breaks the pattern.
      .replace(/:\/\//g, `:${ZERO_WIDTH_SPACE}//`)
      .replace(/(www)\./gi, `$1${ZERO_WIDTH_SPACE}.`)
      // HTML becomes entities; Markdown punctuation is backslash-escaped. '#' before a digit is an issue
      // reference (mid-line it cannot start a heading); any other '#' is escaped so that a trailing one
      // cannot be read as a heading's closing sequence.
      .replace(/[&<>]|#(?!\d)|[\\`*_[\]()|~!${}]/g, (c) => HTML_ENTITIES[c] ?? `\\${c}`)
  );
}
