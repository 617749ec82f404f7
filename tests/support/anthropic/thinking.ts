// Claude Sonnet 5.5 as the platform docs describe it ("Migrate to Claude Sonnet 5.5", "Preserved thinking",
// "Prefix checks for thinking blocks", "Fix a thinking block bound to a different conversation"):
// - it thinks by default, with display "omitted": a reply opens with a signed thinking block whose text is
//   empty, and text written before a tool call comes back as another such block;
// - each thinking block is bound to its prefix (tools, system, every earlier message, the blocks before it
//   in its turn). Here the signature is an HMAC, under a key only this server knows, of a digest of that
//   prefix serialized canonically (cache markers left out, keys sorted), so any change to it is caught;
// - a request that replays a block whose prefix changed is refused with the API's 400, unless it sets
//   `thinking.block_binding.prefix_mismatch_behavior: "drop_block"`, which is honoured only with the
//   `anthropic-beta: thinking-binding-controls-2026-08-01` header; then the blocks go and the reply lists
//   them in `input_transformations`;
// - the settings the docs list as refused answer 400: thinking disabled, thinking budgets, forced
//   tool_choice, sampling parameters (refused in every mode), assistant prefill.
import { createHash, createHmac, randomBytes, type Hash } from 'node:crypto';
import { asArray, isObject, mergeTurns, systemBlocks, withoutCacheControl } from './cache.js';
import type { Json, ScriptedContent } from './types.js';

export const BINDING_BETA = 'thinking-binding-controls-2026-08-01';
const EFFORTS = ['low', 'medium', 'high', 'xhigh', 'max'];
const BETWEEN_TOOLS_EFFORTS = ['low', 'medium', 'high'];
const THINKING_TYPES = new Set(['thinking', 'redacted_thinking']);

export const boundElsewhere = (path: string, headerSent: boolean): string =>
  `${path}: Invalid \`signature\` in \`thinking\` block. The block is bound to a different conversation. ` +
  'Remove the block, or set `thinking.block_binding.prefix_mismatch_behavior` to "drop_block".' +
  (headerSent
    ? ''
    : ` That setting requires the \`${BINDING_BETA}\` value in the \`anthropic-beta\` header.`);

export function betaHeaders(headers: Record<string, string | string[] | undefined>): string[] {
  const raw = headers['anthropic-beta'];
  const values = Array.isArray(raw) ? raw : raw === undefined ? [] : [raw];
  return values.flatMap((value) => value.split(',').map((beta) => beta.trim()));
}

/** The first setting Sonnet 5.5 refuses, worded close to the API's 400; undefined if none. */
export function refusedSetting(body: Json, betas: string[]): string | undefined {
  const thinking = body.thinking;
  if (thinking !== undefined) {
    if (!isObject(thinking)) return 'thinking: Input should be a valid dictionary';
    if (thinking.type === 'disabled')
      return 'thinking.type: "disabled" is not supported on this model; the lowest setting is "between_tools"';
    if (thinking.type === 'enabled' || thinking.budget_tokens !== undefined)
      return 'thinking.budget_tokens: thinking budgets are not supported on this model; use thinking.type "adaptive" and output_config.effort';
    if (thinking.type !== 'adaptive' && thinking.type !== 'between_tools')
      return "thinking.type: Input should be 'adaptive' or 'between_tools'";
    const binding = thinking.block_binding;
    if (binding !== undefined) {
      if (!betas.includes(BINDING_BETA))
        return `thinking.block_binding: this setting requires the \`${BINDING_BETA}\` value in the \`anthropic-beta\` header`;
      const behaviour = isObject(binding) ? binding.prefix_mismatch_behavior : undefined;
      if (behaviour !== 'error' && behaviour !== 'drop_block')
        return "thinking.block_binding.prefix_mismatch_behavior: Input should be 'error' or 'drop_block'";
    }
  }
  const choice = body.tool_choice;
  if (isObject(choice) && (choice.type === 'any' || choice.type === 'tool'))
    return `tool_choice.type: forced tool use ("${String(choice.type)}") is not supported on this model; use "auto" or "none"`;
  const effort = isObject(body.output_config) ? body.output_config.effort : undefined;
  if (effort !== undefined && !EFFORTS.includes(String(effort)))
    return "output_config.effort: Input should be 'low', 'medium', 'high', 'xhigh' or 'max'";
  if (isObject(thinking) && thinking.type === 'between_tools' && effort !== undefined)
    if (!BETWEEN_TOOLS_EFFORTS.includes(String(effort)))
      return 'thinking.type: "between_tools" works only with output_config.effort low, medium or high';
  const last = asArray(body.messages).at(-1);
  if (isObject(last) && last.role === 'assistant') {
    const blocks = asArray(last.content);
    if (!blocks.some((block) => isObject(block) && THINKING_TYPES.has(String(block.type))))
      return 'This model does not support assistant message prefill. The conversation must end with a user message.';
  }
  return undefined;
}

/** Text before a tool call becomes thinking, every reply opens with thinking, and thinking text is omitted. */
export function asPreservedThinking(content: readonly ScriptedContent[]): ScriptedContent[] {
  const lastToolUse = content.map((block) => block.type).lastIndexOf('tool_use');
  const omitted = { type: 'thinking' as const, thinking: '', signature: '' };
  const out = content.map((block, i) =>
    block.type === 'thinking' || (block.type === 'text' && i < lastToolUse) ? omitted : block,
  );
  return content[0]?.type === 'thinking' ? out : [omitted, ...out];
}

/** JSON with sorted keys and no cache markers: the same content always serializes the same way. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (!isObject(value)) return JSON.stringify(value) ?? 'null';
  const keys = Object.keys(value)
    .filter((key) => key !== 'cache_control' && value[key] !== undefined)
    .sort();
  return `{${keys.map((key) => `${JSON.stringify(key)}:${canonical(value[key])}`).join(',')}}`;
}

export interface ReplayedBlock {
  path: string;
  valid: boolean;
}

/** Signs thinking blocks over their prefix and checks the ones a request replays. */
export class ThinkingBinder {
  readonly #key = randomBytes(32);

  sign(prefix: string, thought: string): string {
    const mac = createHmac('sha256', this.#key).update(prefix).update('\u0000').update(thought);
    return `Ep${mac.digest('base64')}`;
  }

  /** A running digest over tools, system and message blocks, in the order the API reads them. */
  #chain(body: Json): { hash: Hash; add(kind: string, block: unknown): void } {
    const hash = createHash('sha256');
    const add = (kind: string, block: unknown): void => {
      hash.update(canonical([kind, withoutCacheControl(block)])).update('\u0000');
    };
    for (const tool of asArray(body.tools)) add('tool', tool);
    for (const block of systemBlocks(body.system)) add('system', block);
    return { hash, add };
  }

  /** Every thinking block the request replays, with whether its prefix is the one it was signed over. */
  check(body: Json): ReplayedBlock[] {
    const chain = this.#chain(body);
    const replayed: ReplayedBlock[] = [];
    for (const turn of mergeTurns(asArray(body.messages))) {
      for (const { block, msgIndex, blockIndex } of turn.blocks) {
        if (turn.role === 'assistant' && THINKING_TYPES.has(String(block.type))) {
          const prefix = chain.hash.copy().digest('hex');
          const thought = typeof block.thinking === 'string' ? block.thinking : String(block.data ?? '');
          replayed.push({
            path: `messages.${msgIndex}.content.${blockIndex}`,
            valid: block.signature === this.sign(prefix, thought),
          });
        }
        chain.add(turn.role, block);
      }
    }
    return replayed;
  }

  /** Fills in the signatures of a reply's thinking blocks, each over the request plus the blocks before it. */
  signReply(body: Json, content: Json[]): void {
    const chain = this.#chain(body);
    for (const turn of mergeTurns(asArray(body.messages)))
      for (const { block } of turn.blocks) chain.add(turn.role, block);
    for (const block of content) {
      if (block.type === 'thinking')
        block.signature = this.sign(chain.hash.copy().digest('hex'), String(block.thinking));
      chain.add('assistant', block);
    }
  }
}

/** The request without the given blocks (by `messages.i.content.j` path), as the model reads it. */
export function withoutBlocks(body: Json, paths: ReadonlySet<string>): Json {
  const messages = asArray(body.messages).map((message, i) => {
    if (!isObject(message) || !Array.isArray(message.content)) return message;
    const content = message.content.filter((_, j) => !paths.has(`messages.${i}.content.${j}`));
    return { ...message, content };
  });
  return { ...body, messages };
}
