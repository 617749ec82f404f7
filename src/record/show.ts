// A run record read back and printed as the terminal panel prints a run (`todo-agent show FILE`, and the
// short rendering in the job summary). A line that is not a record line is named, never fatal.
import { z } from 'zod';
import type { AgentEvent } from '../agent/events.js';
import { STATUSES } from '../agent/todo/todos.js';
import { terminalReporter } from '../terminal/reporter.js';
import type { Screen } from '../terminal/screen.js';
import { RECORD_VERSION } from './run-record.js';

const item = z.object({
  id: z.string(),
  text: z.string(),
  status: z.enum(STATUSES),
  activeForm: z.string().optional(),
});
const usage = z.object({
  input_tokens: z.number(),
  output_tokens: z.number(),
  cache_creation_input_tokens: z.number(),
  cache_read_input_tokens: z.number(),
});

/** The lines `show` prints, each checked for the fields it reads; anything else passes unprinted. */
const LINE = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('start'),
    v: z.number(),
    task: z.string(),
    source: z.string(),
    thread: z.string().optional(),
    runUrl: z.string().optional(),
    model: z.string().optional(),
  }),
  z.object({ type: z.literal('turn_start'), turn: z.number() }),
  z.object({ type: z.literal('todos'), turn: z.number(), items: z.array(item) }),
  z.object({
    type: z.literal('tool'),
    turn: z.number(),
    name: z.string(),
    input: z.unknown(),
    isError: z.boolean(),
    durationMs: z.number(),
    exitCode: z.number().nullish(),
  }),
  z.object({ type: z.literal('nudge'), turn: z.number(), kind: z.string(), text: z.string() }),
  z.object({
    type: z.literal('response'),
    turn: z.number(),
    content: z.array(z.object({ type: z.string(), text: z.string().optional() }).loose()),
  }),
  z.object({
    type: z.literal('verify'),
    turn: z.number(),
    report: z.object({
      command: z.string(),
      passed: z.boolean(),
      round: z.number(),
      attempts: z.number(),
      exitCode: z.number().nullable(),
      timedOut: z.boolean(),
      aborted: z.boolean(),
      durationMs: z.number(),
      outputTail: z.string(),
    }),
  }),
  z.object({ type: z.literal('turn_end'), turn: z.number(), usage, costUsd: z.number() }),
  z.object({
    type: z.literal('compaction'),
    turn: z.number(),
    kind: z.enum(['on-demand', 'threshold']),
    summarized: z.boolean(),
    stopReason: z.string().nullable(),
  }),
  z.object({
    type: z.literal('network_refused'),
    turn: z.number(),
    host: z.string(),
    port: z.number(),
    reason: z.string(),
    allow: z.string().optional(),
  }),
  z.object({
    type: z.literal('end'),
    result: z
      .object({ status: z.string(), reason: z.string(), turns: z.number(), toolCalls: z.number() })
      .loose(),
  }),
  z.object({
    type: z.literal('helper_start'),
    turn: z.number(),
    session: z.string(),
    kind: z.enum(['explore', 'edit']),
    description: z.string(),
    under: z.string().optional(),
  }),
  // A helper's event: checked as a line of its own when it is printed.
  z.object({ type: z.literal('helper'), session: z.string(), event: z.object({ type: z.string() }).loose() }),
  z.object({ type: z.literal('note'), text: z.string() }),
  z.object({
    type: z.literal('delivery'),
    committed: z.array(z.string()),
    // A record before grouping listed every file by its path.
    heldBack: z.array(
      z.union([z.string(), z.object({ path: z.string(), files: z.number(), why: z.string().optional() })]),
    ),
    pushed: z.string().optional(),
    pr: z.object({ number: z.number(), url: z.string() }).optional(),
    refused: z.object({ reason: z.string(), patch: z.string() }).optional(),
    withheld: z.object({ paths: z.array(z.string()), reason: z.string(), patch: z.string() }).optional(),
    note: z.string().optional(),
  }),
  z.object({ type: z.literal('result'), status: z.string(), reason: z.string().optional() }),
]);
const KNOWN: ReadonlySet<string> = new Set(LINE.options.map((option) => option.shape.type.value));

export interface ShowOptions {
  /** The most characters of model text shown per response (the file keeps it all). */
  textChars?: number;
}

/** Prints the record `text` (a JSON Lines file's contents) on `screen` as the terminal showed the run. */
export function showRecord(text: string, screen: Screen, options: ShowOptions = {}): void {
  const report = terminalReporter(screen);
  const max = options.textChars ?? 500;
  text.split('\n').forEach((raw, index) => {
    if (raw.trim() === '') return;
    const problem = (why: string) => screen.print(`  ? line ${index + 1}: ${why}\n`);
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch {
      return problem('not JSON');
    }
    const type = (value as { type?: unknown } | null)?.type;
    if (typeof type !== 'string' || !KNOWN.has(type)) return; // requests and lines of later versions
    const parsed = LINE.safeParse(value);
    if (!parsed.success)
      return problem(`a ${type} line without ${parsed.error.issues.map((i) => i.path.join('.')).join(', ')}`);
    const line = parsed.data;
    switch (line.type) {
      case 'helper': {
        // Its list, tool calls and end, nested as the terminal showed them; the rest is the run's detail.
        const inner = LINE.safeParse(line.event);
        if (inner.success && ['todos', 'tool', 'end'].includes(inner.data.type))
          report({ type: 'helper', session: line.session, event: inner.data as AgentEvent });
        break;
      }
      case 'start':
        if (line.v > RECORD_VERSION)
          problem(`record version ${line.v}, newer than this reader's ${RECORD_VERSION}`);
        screen.print(
          `todo-agent run${line.thread ? ` on ${line.thread}` : ''} (${line.source})${line.runUrl ? ` ${line.runUrl}` : ''}\n`,
        );
        screen.print(`task: ${oneLine(line.task, max)}\n`);
        break;
      case 'turn_start':
        screen.print(`\nTurn ${line.turn}\n`);
        break;
      case 'response':
        for (const block of line.content) {
          if (block.type === 'text' && block.text?.trim()) screen.print(`  » ${oneLine(block.text, max)}\n`);
        }
        break;
      case 'turn_end':
        screen.print(
          `  tokens: ${line.usage.input_tokens + line.usage.cache_creation_input_tokens + line.usage.cache_read_input_tokens} in, ${line.usage.output_tokens} out · $${line.costUsd.toFixed(2)}\n`,
        );
        break;
      case 'note':
        screen.print(`  · ${line.text}\n`);
        break;
      case 'delivery':
        screen.print(`\ndelivery: ${describeDelivery(line)}\n`);
        break;
      case 'result':
        screen.print(`result: ${line.status}${line.reason ? `: ${line.reason}` : ''}\n`);
        break;
      default:
        report(line as AgentEvent);
    }
  });
}

function describeDelivery(line: Extract<z.infer<typeof LINE>, { type: 'delivery' }>): string {
  const parts = [
    `${line.committed.length} file${line.committed.length === 1 ? '' : 's'} committed`,
    ...(line.heldBack.length ? [`held back: ${line.heldBack.map(leftOut).join(', ')}`] : []),
    ...(line.withheld
      ? [`left out ${line.withheld.paths.join(', ')} (${line.withheld.reason}); the record holds their patch`]
      : []),
    ...(line.pushed ? [`pushed to ${line.pushed}`] : []),
    ...(line.pr ? [`pull request #${line.pr.number} ${line.pr.url}`] : []),
    ...(line.refused ? [`not pushed (${line.refused.reason}); the record holds the patch`] : []),
    ...(line.note ? [line.note] : []),
  ];
  return parts.join('; ');
}

/** A folder held back whole once, with its count and why (`.venv (768 files): a Python virtualenv`). */
function leftOut(entry: string | { path: string; files: number; why?: string | undefined }): string {
  if (typeof entry === 'string') return entry;
  const count = entry.files > 1 ? ` (${entry.files} files)` : '';
  return `${entry.path}${count}${entry.why ? `: ${entry.why}` : ''}`;
}

/** Model-written text on one short line (the screen shows any control character in it as an escape). */
function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  const chars = Array.from(flat);
  return chars.length > max ? `${chars.slice(0, max - 1).join('')}…` : flat;
}
