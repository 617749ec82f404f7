// Compaction on the server, as the scripted model plays it. Both kinds, from the platform docs (checked
// 2026-12-07): "Compaction on demand" (beta compact-2026-09-04: a request with `compaction: {type:
// "summarize"}` answers one signed block alone, stop_reason "compaction", top-level usage zero and the
// summary's tokens in `usage.iterations`; the block goes first in every later request, exactly as returned)
// and "Compaction at a token threshold" (beta compact-2026-01-12: `context_management.edits` with
// `compact_20260112`, trigger at least 50,000 input tokens, the block at the start of the answer, whatever
// stands before it ignored). The 400s follow each page's error table and the SDK's error classes (the
// `error.details.error_code` values); where a page gives no wording, the message is ours.
import { createHmac, randomBytes } from 'node:crypto';
import { asArray, estimateTokens, isObject, type PromptMeasure } from './cache.js';
import type { Json } from './types.js';

export const ON_DEMAND_BETA = 'compact-2026-09-04';
export const THRESHOLD_BETA = 'compact-2026-01-12';
export const MIN_TRIGGER = 50_000;
const DEFAULT_TRIGGER = 150_000;
const MAX_INSTRUCTIONS = 16_384;

/** Both pages' supportedModels (the same list). A model id matches when it starts with one of them. */
export const COMPACTING_MODELS = [
  'claude-fable-5-1',
  'claude-mythos-5-1',
  'claude-fable-5',
  'claude-mythos-5',
  'claude-mythos-preview',
  'claude-opus-5-5',
  'claude-opus-5',
  'claude-opus-4-8',
  'claude-opus-4-7',
  'claude-opus-4-6',
  'claude-sonnet-5',
  'claude-sonnet-4-6',
];

/** The fields a compaction block may carry back (the SDK's BetaCompactionBlockParam). */
const BLOCK_FIELDS = new Set([
  'type',
  'content',
  'encrypted_content',
  'signature',
  'cache_control',
  'tool_changes',
]);

export interface CompactionRefusal {
  message: string;
  /** `error.details.error_code`, where the API sets one. */
  code?: string;
}

interface Found {
  block: Json;
  msgIndex: number;
  blockIndex: number;
}

const refusal = (message: string, code?: string): CompactionRefusal => ({
  message,
  ...(code ? { code } : {}),
});

function compactionBlocks(body: Json): Found[] {
  const found: Found[] = [];
  asArray(body.messages).forEach((message, msgIndex) => {
    if (!isObject(message)) return;
    asArray(message.content).forEach((block, blockIndex) => {
      if (isObject(block) && block.type === 'compaction') found.push({ block, msgIndex, blockIndex });
    });
  });
  return found;
}

/** Whether a model id names a listed model: as itself, dated, or as a platform's id (`anthropic.…-v1:0`). */
const supports = (model: unknown): boolean =>
  typeof model === 'string' &&
  COMPACTING_MODELS.some((id) => new RegExp(`(^|[./])${id}(?!-\\d(-|$|[@:]))([-@:]|$)`).test(model));

/** A summary the size a real one has (a few thousand tokens), naming what it summarized. */
export function defaultSummary(body: Json): string {
  const messages = asArray(body.messages).length;
  const line = 'Findings, decisions and failed attempts of the work so far, as the summarizer wrote them. ';
  return `<summary>Summary of ${messages} messages. ${line.repeat(90).trim()}</summary>`;
}

export class CompactionDesk {
  readonly #secret = randomBytes(16);
  /** Every block handed out: its signature (on demand) or encrypted_content (threshold), and its content. */
  readonly #issued = new Map<string, string | null>();

  #sign(content: string | null): string {
    return createHmac('sha256', this.#secret)
      .update(content ?? '\u0000')
      .update(randomBytes(8))
      .digest('base64');
  }

  /** The compaction edit of the request, if it has one. */
  static edit(body: Json): Json | undefined {
    const management = body.context_management;
    if (!isObject(management)) return undefined;
    return asArray(management.edits).find(
      (edit): edit is Json => isObject(edit) && edit.type === 'compact_20260112',
    );
  }

  /** The first compaction rule the request breaks, or undefined. */
  check(body: Json, betas: readonly string[]): CompactionRefusal | undefined {
    const summarize = body.compaction;
    const edit = CompactionDesk.edit(body);
    const blocks = compactionBlocks(body);
    if (summarize != null) {
      if (!betas.includes(ON_DEMAND_BETA))
        return refusal(`compaction: the \`compaction\` parameter requires anthropic-beta: ${ON_DEMAND_BETA}`);
      if (body.context_management != null)
        return refusal(
          'compaction: `compaction` cannot be combined with `context_management` in one request',
        );
      if (!isObject(summarize) || summarize.type !== 'summarize')
        return refusal("compaction.type: Input should be 'summarize'");
      if (typeof summarize.instructions === 'string' && summarize.instructions.length > MAX_INSTRUCTIONS)
        return refusal(`compaction.instructions: String should have at most ${MAX_INSTRUCTIONS} characters`);
      if (body.stop_sequences != null) return refusal('stop_sequences: not supported with `compaction`');
      const choice = isObject(body.tool_choice) ? body.tool_choice.type : undefined;
      if (choice === 'any' || choice === 'tool')
        return refusal(`tool_choice: type \`${String(choice)}\` is not supported with \`compaction\``);
      if (isObject(body.output_config) && body.output_config.format != null)
        return refusal('output_config.format: not supported with `compaction`');
      if (!supports(body.model)) return refusal(`model: ${String(body.model)} does not support compaction`);
      const messages = asArray(body.messages);
      if (messages.length === 0)
        return refusal('messages: nothing to summarize', 'compaction_nothing_to_summarize');
      const last = messages.at(-1);
      const lastBlock =
        isObject(last) && last.role === 'assistant' ? asArray(last.content).at(-1) : undefined;
      if (isObject(lastBlock) && lastBlock.type === 'tool_use')
        return refusal(
          'messages: the last assistant turn ends in a tool call with no result; send its tool results, then compact',
          'compaction_incomplete_turn',
        );
    }
    if (edit) {
      if (!betas.includes(THRESHOLD_BETA))
        return refusal(
          `context_management.edits: compact_20260112 requires anthropic-beta: ${THRESHOLD_BETA}`,
        );
      const value = isObject(edit.trigger) ? edit.trigger.value : DEFAULT_TRIGGER;
      if (typeof value !== 'number' || value < MIN_TRIGGER)
        return refusal(
          `context_management.edits.0.trigger.value: Input should be greater than or equal to ${MIN_TRIGGER}`,
        );
      if (!supports(body.model)) return refusal(`model: ${String(body.model)} does not support compaction`);
      if (blocks.some(({ block }) => block.signature != null))
        return refusal(
          'context_management: compact_20260112 cannot run on a request that carries a signed compaction block',
        );
    }
    return this.#checkBlocks(blocks, betas);
  }

  #checkBlocks(blocks: Found[], betas: readonly string[]): CompactionRefusal | undefined {
    const where = ({ msgIndex, blockIndex }: Found) => `messages.${msgIndex}.content.${blockIndex}`;
    for (const found of blocks) {
      const { block } = found;
      const signed = block.signature != null;
      if (!betas.includes(signed ? ON_DEMAND_BETA : THRESHOLD_BETA))
        return refusal(`${where(found)}.type: 'compaction' is not one of the expected content block types`);
      const extra = Object.keys(block).find((field) => !BLOCK_FIELDS.has(field));
      if (extra) return refusal(`${where(found)}.compaction.${extra}: Extra inputs are not permitted`);
      if (block.content === '')
        return refusal(`${where(found)}.compaction.content: empty string is not allowed`);
      const key = String(signed ? block.signature : block.encrypted_content);
      if (!this.#issued.has(key))
        return refusal(`${where(found)}: invalid compaction signature`, 'compaction_signature_invalid');
      if (this.#issued.get(key) !== (block.content ?? null))
        return refusal(
          `${where(found)}: the compaction block's content was changed`,
          'compaction_content_mismatch',
        );
    }
    if (blocks.filter(({ block }) => block.content != null).length > 1)
      return refusal(
        'messages: more than one compaction block with content; send only the newest',
        'compaction_block_ambiguous',
      );
    const misplaced = blocks.find(
      ({ block, msgIndex, blockIndex }) => block.signature != null && (msgIndex !== 0 || blockIndex !== 0),
    );
    if (misplaced)
      return refusal(
        `${where(misplaced)}: the compaction block must come first in messages`,
        'compaction_block_misplaced',
      );
    return undefined;
  }

  /** What the model reads: the messages from the last block with a summary on (what stands before it is ignored). */
  static effective(body: Json): Json {
    const blocks = compactionBlocks(body).filter(({ block }) => block.content != null);
    const last = blocks.at(-1);
    if (!last || (last.msgIndex === 0 && last.blockIndex === 0)) return body;
    const messages = asArray(body.messages).slice(last.msgIndex);
    const first = messages[0] as Json;
    messages[0] = { ...first, content: asArray(first.content).slice(last.blockIndex) };
    return { ...body, messages };
  }

  /** A new block: signed (on demand) or with its opaque metadata (threshold). */
  block(kind: 'on-demand' | 'threshold', content: string | null): Json {
    const key = this.#sign(content);
    this.#issued.set(key, content);
    return kind === 'on-demand'
      ? { type: 'compaction', content, signature: key }
      : { type: 'compaction', content, encrypted_content: key };
  }

  /** Whether the threshold edit fires for a prompt of `total` tokens. */
  static fires(body: Json, total: number): boolean {
    const edit = CompactionDesk.edit(body);
    if (!edit) return false;
    const value =
      isObject(edit.trigger) && typeof edit.trigger.value === 'number' ? edit.trigger.value : DEFAULT_TRIGGER;
    return total >= value;
  }
}

/** A `usage.iterations` entry for the request measured, of `type`, with this output. */
export function iteration(type: 'compaction' | 'message', measure: PromptMeasure, output: unknown): Json {
  return {
    type,
    input_tokens: measure.total - measure.read - measure.creation,
    cache_creation_input_tokens: measure.creation,
    cache_read_input_tokens: measure.read,
    cache_creation: { ephemeral_5m_input_tokens: measure.creation, ephemeral_1h_input_tokens: 0 },
    output_tokens: Math.max(1, estimateTokens(output)),
  };
}

/** Whether a request carries either compaction beta (then every answer reports `usage.iterations`). */
export const compactionBeta = (betas: readonly string[]): boolean =>
  betas.includes(ON_DEMAND_BETA) || betas.includes(THRESHOLD_BETA);
