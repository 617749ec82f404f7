// Compaction on the server, as the request and response carry it ("Compaction on demand" and "Compaction at
// a token threshold", checked 2026-12-07, and the SDK's beta types). On demand: a request of its own with
// `compaction: {type: "summarize"}` answers one signed `compaction` block (stop_reason "compaction"), which
// every later request sends first in `messages`, unchanged, in place of the messages it summarized. At a
// threshold: `context_management.edits` with `compact_20260112` on ordinary requests; the block starts the
// answer and the API ignores whatever stands before it. The two may not be combined in one request, and
// threshold compaction cannot run on a request that carries an on-demand block. Each needs its beta header
// on every request that carries its block. The compaction's own tokens are reported in `usage.iterations`
// only; the top-level counts leave them out.
import type { CompactionKind } from './catalogue.js';
import type { Message } from './messages.js';
import type { Usage } from './usage.js';

export const BETA: Record<CompactionKind, string> = {
  'on-demand': 'compact-2026-09-04',
  threshold: 'compact-2026-01-12',
};

/** The threshold page: "`value` must be at least 50,000 tokens". */
export const MIN_TRIGGER_TOKENS = 50_000;

/**
 * What the summary is asked for: what the run learned, not the list (the loop re-states the list, the task
 * and the files changed from its own records right after the block). The pages advise saying "do not call
 * tools": a summarizer that calls one returns no summary.
 */
export const SUMMARY_INSTRUCTIONS = [
  'Summarize the transcript above for your own continuation of the task in a fresh context: the findings',
  '(what you learned about the code, commands that work, where things are), the decisions taken and why,',
  'and the attempts that failed and why they failed, so none is repeated. Leave out the todo list, the task',
  'text and the list of changed files: they are restated after this summary from the records. Do not call any',
  'tools while writing this summary; respond with text only, inside <summary></summary> tags.',
].join(' ');

/** The request fields that ask for a compaction: a summary now (on demand), or at the trigger (threshold). */
export function compactionFields(
  kind: CompactionKind,
  request: { summarize?: boolean; trigger?: number },
): Record<string, unknown> {
  if (request.summarize) return { compaction: { type: 'summarize', instructions: SUMMARY_INSTRUCTIONS } };
  if (kind === 'threshold' && request.trigger !== undefined && request.trigger >= MIN_TRIGGER_TOKENS) {
    const edit = {
      type: 'compact_20260112',
      trigger: { type: 'input_tokens', value: Math.floor(request.trigger) },
      instructions: SUMMARY_INSTRUCTIONS,
    };
    return { context_management: { edits: [edit] } };
  }
  return {};
}

/** A `compaction` block as the API returns it; sent back exactly so, field for field. */
export interface CompactionBlock {
  type: 'compaction';
  content: string | null;
  [field: string]: unknown;
}

export function isCompactionBlock(block: unknown): block is CompactionBlock {
  return typeof block === 'object' && block !== null && (block as { type?: unknown }).type === 'compaction';
}

/** The response's compaction block, if it has one (threshold: at the start; on demand: alone). */
export function compactionBlock(message: Message): CompactionBlock | undefined {
  return (message.content as unknown[]).find(isCompactionBlock);
}

interface IterationUsage extends Partial<Usage> {
  type?: string;
}

/** The tokens of the compactions a response reports in `usage.iterations` (zero when it has none). */
export function compactionUsage(message: Message): Usage {
  const iterations = (message.usage as { iterations?: IterationUsage[] | null } | undefined)?.iterations;
  const total: Usage = {
    input_tokens: 0,
    output_tokens: 0,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
  };
  for (const iteration of iterations ?? []) {
    if (iteration.type !== 'compaction') continue;
    total.input_tokens += iteration.input_tokens ?? 0;
    total.output_tokens += iteration.output_tokens ?? 0;
    total.cache_creation_input_tokens += iteration.cache_creation_input_tokens ?? 0;
    total.cache_read_input_tokens += iteration.cache_read_input_tokens ?? 0;
  }
  return total;
}
