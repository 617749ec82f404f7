// What the action knows about each Claude model, as data: its context window, output limit, list prices
// and how it thinks. Checked 2026-12-03 in the platform docs ("Models overview", "Pricing", each model's
// overview page). Prices change: this table, or the `price_per_mtok` input, is the one place to say so.
import type { Usage } from './usage.js';
import type { Provider } from './providers.js';

/** The model a run uses when no `model` is given (kept here, away from the SDK, which settings need not load). */
export const DEFAULT_MODEL = 'claude-sonnet-5-5';

/** USD per million tokens. Cache writes are the 5-minute kind (the only kind this action asks for). */
export interface Prices {
  input: number;
  output: number;
  cacheWrite: number;
  cacheRead: number;
}

/**
 * `preserved`: adaptive thinking on by default, every thinking block bound to its prefix (the API refuses
 * a changed prefix), thinking cannot be turned off. `adaptive`: thinks by default, no prefix check.
 * `extended`: thinks only when asked (this action does not ask).
 */
export type ThinkingKind = 'preserved' | 'adaptive' | 'extended';

export const EFFORTS = ['low', 'medium', 'high', 'xhigh', 'max'] as const;
export type Effort = (typeof EFFORTS)[number];

export interface ModelInfo {
  /** The table key the id matched, or `unknown`. */
  family: string;
  window: number;
  maxOutput: number;
  prices: Prices;
  thinking: ThinkingKind;
  /** The effort the model uses when none is sent; undefined when it takes no `output_config.effort`. */
  defaultEffort?: Effort;
  /** Whether the model takes the API's tool search tool (and `defer_loading` on the tools it finds). */
  toolSearch: boolean;
  /** The kinds of compaction on the server the model offers, on any platform (see COMPACTION_PLATFORMS). */
  compaction: readonly CompactionKind[];
  /** Whether the model takes the API's structured outputs (`output_config.format` with a JSON Schema). */
  structuredOutputs: boolean;
}

/**
 * Compaction on the server: `on-demand` (a request with `compaction: {type: "summarize"}`, beta
 * compact-2026-09-04) or `threshold` (`context_management.edits` with `compact_20260112`, beta
 * compact-2026-01-12). The docs recommend on-demand wherever it is available.
 */
export const COMPACTION_KINDS = ['on-demand', 'threshold'] as const;
export type CompactionKind = (typeof COMPACTION_KINDS)[number];

/**
 * The models the "Compaction on demand" and "Compaction at a token threshold" pages list as supported
 * (the same list on both, checked 2026-12-07). Claude Sonnet 5.5 and the Haiku models are not on it.
 */
const COMPACTING = new Set([
  'claude-fable-5-1',
  'claude-mythos-5-1',
  'claude-fable-5',
  'claude-opus-5-5',
  'claude-opus-5',
  'claude-opus-4-8',
  'claude-opus-4-7',
  'claude-opus-4-6',
  'claude-sonnet-5',
  'claude-sonnet-4-6',
]);

/**
 * Where each kind is offered, from the same pages' platform lists: on-demand is "not available" on Amazon
 * Bedrock, threshold compaction is in beta on all three (Google Cloud is Vertex AI).
 */
export const COMPACTION_PLATFORMS: Record<CompactionKind, readonly Provider[]> = {
  'on-demand': ['anthropic', 'vertex'],
  threshold: ['anthropic', 'bedrock', 'vertex'],
};

/** The kind a run on `provider` uses: on-demand where offered, else threshold, else none (clearing). */
export function compactionFor(info: ModelInfo, provider: Provider): CompactionKind | undefined {
  return COMPACTION_KINDS.find(
    (kind) => info.compaction.includes(kind) && COMPACTION_PLATFORMS[kind].includes(provider),
  );
}

const prices = (input: number, output: number, cacheRead: number): Prices => ({
  input,
  output,
  cacheWrite: input * 1.25,
  cacheRead,
});
const M = 1_000_000;
const K = 1_000;

/**
 * Cache reads are not one fraction of input for every model: per MTok, Fable 5.1 and Mythos 5.1 $0.25
 * (0.025× input), Opus 5.5 $0.20 and Sonnet 5.5 $0.10 (0.05×), every other model here 0.1× (Pricing page,
 * "Prompt caching", checked 2026-12-03; some translated model pages still show Sonnet 5.5 at $0.20).
 */
const TABLE: Record<string, Omit<ModelInfo, 'family' | 'toolSearch' | 'compaction' | 'structuredOutputs'>> = {
  'claude-fable-5-1': {
    window: M,
    maxOutput: 128 * K,
    prices: prices(10, 50, 0.25),
    thinking: 'preserved',
    defaultEffort: 'high',
  },
  'claude-mythos-5-1': {
    window: M,
    maxOutput: 128 * K,
    prices: prices(10, 50, 0.25),
    thinking: 'preserved',
    defaultEffort: 'high',
  },
  'claude-fable-5': {
    window: M,
    maxOutput: 128 * K,
    prices: prices(10, 50, 1),
    thinking: 'adaptive',
    defaultEffort: 'high',
  },
  'claude-opus-5-5': {
    window: M,
    maxOutput: 128 * K,
    prices: prices(4, 20, 0.2),
    thinking: 'preserved',
    defaultEffort: 'medium',
  },
  'claude-opus-5': {
    window: M,
    maxOutput: 128 * K,
    prices: prices(5, 25, 0.5),
    thinking: 'adaptive',
    defaultEffort: 'high',
  },
  // Sonnet 5.5 cache reads were cut to $0.10 (0.05× input) on 2026-10-07.
  'claude-sonnet-5-5': {
    window: M,
    maxOutput: 128 * K,
    prices: prices(2, 10, 0.1),
    thinking: 'preserved',
    defaultEffort: 'high',
  },
  'claude-sonnet-5': {
    window: M,
    maxOutput: 128 * K,
    prices: prices(2, 10, 0.2),
    thinking: 'adaptive',
    defaultEffort: 'high',
  },
  // Haiku 5.5 costs 5× more on every token of a request whose prompt passes 100K; priced here at that rate.
  'claude-haiku-5-5': {
    window: M,
    maxOutput: 128 * K,
    prices: prices(0.5, 2.5, 0.05),
    thinking: 'preserved',
    defaultEffort: 'medium',
  },
  'claude-haiku-4-5': { window: 200 * K, maxOutput: 64 * K, prices: prices(1, 5, 0.1), thinking: 'extended' },
  'claude-opus-4-8': { window: 200 * K, maxOutput: 64 * K, prices: prices(5, 25, 0.5), thinking: 'extended' },
  'claude-opus-4-7': { window: 200 * K, maxOutput: 64 * K, prices: prices(5, 25, 0.5), thinking: 'extended' },
  'claude-opus-4-6': { window: 200 * K, maxOutput: 64 * K, prices: prices(5, 25, 0.5), thinking: 'extended' },
  'claude-opus-4-5': { window: 200 * K, maxOutput: 64 * K, prices: prices(5, 25, 0.5), thinking: 'extended' },
  'claude-opus-4-1': {
    window: 200 * K,
    maxOutput: 32 * K,
    prices: prices(15, 75, 1.5),
    thinking: 'extended',
  },
  'claude-opus-4': { window: 200 * K, maxOutput: 32 * K, prices: prices(15, 75, 1.5), thinking: 'extended' },
  'claude-sonnet-4-6': {
    window: 200 * K,
    maxOutput: 64 * K,
    prices: prices(3, 15, 0.3),
    thinking: 'extended',
  },
  'claude-sonnet-4-5': {
    window: 200 * K,
    maxOutput: 64 * K,
    prices: prices(3, 15, 0.3),
    thinking: 'extended',
  },
  'claude-sonnet-4': { window: 200 * K, maxOutput: 64 * K, prices: prices(3, 15, 0.3), thinking: 'extended' },
};

/**
 * The models the tool search tool page does not list as taking it (its supported models, checked 2026-12-03:
 * every other model of the table, Haiku 4.5 included, takes `tool_search_tool_regex_20251119`).
 */
const WITHOUT_TOOL_SEARCH = new Set(['claude-opus-4-1', 'claude-opus-4', 'claude-sonnet-4']);

/**
 * The models the structured outputs page does not list as taking them (checked 2026-12-07: generally
 * available from Claude Haiku 4.5, Sonnet 4.5 and Opus 4.5 on); these get the final answer as a tool call.
 */
const WITHOUT_STRUCTURED_OUTPUTS = new Set(['claude-opus-4-1', 'claude-opus-4', 'claude-sonnet-4']);

const byCost = Object.values(TABLE).sort(
  (a, b) => b.prices.output - a.prices.output || b.prices.input - a.prices.input,
);
/** An unknown id: the dearest known prices (so `max_cost_usd` errs on the safe side), the smallest window. */
const UNKNOWN: ModelInfo = {
  family: 'unknown',
  window: Math.min(...Object.values(TABLE).map((info) => info.window)),
  maxOutput: 32 * K,
  prices: byCost[0]!.prices,
  thinking: 'extended',
  // A request the model may refuse is worse than a larger prefix: an unknown model gets every tool loaded.
  toolSearch: false,
  // Likewise a beta field: an unknown model keeps its context by clearing.
  compaction: [],
  structuredOutputs: false,
};

/**
 * The table entry for a model id: the longest key the id contains as a whole name, so a dated id
 * (`claude-haiku-4-5-20251001`) or a cloud platform's id (`anthropic.claude-sonnet-5-5-v1:0`,
 * `claude-sonnet-5-5@20260901`) finds its family, and `claude-sonnet-5-5` never lands on `claude-sonnet-5`.
 */
export function modelInfo(id: string): ModelInfo {
  let best: string | undefined;
  for (const key of Object.keys(TABLE)) {
    const at = id.indexOf(key);
    if (at < 0 || (at > 0 && !/[./]/.test(id[at - 1]!))) continue;
    const after = id[at + key.length];
    if (after !== undefined && !/[-@:]/.test(after)) continue;
    if (after === '-' && /^-\d(-|$)/.test(id.slice(at + key.length))) continue; // claude-opus-4 in claude-opus-4-9
    if (!best || key.length > best.length) best = key;
  }
  if (!best) return UNKNOWN;
  const compaction = COMPACTING.has(best) ? COMPACTION_KINDS : [];
  return {
    family: best,
    ...TABLE[best]!,
    toolSearch: !WITHOUT_TOOL_SEARCH.has(best),
    compaction,
    structuredOutputs: !WITHOUT_STRUCTURED_OUTPUTS.has(best),
  };
}

/**
 * `price_per_mtok` ("input,output" in USD): cache writes and reads follow at 1.25× and 0.1× input, the
 * common rate; for a model whose reads cost less (the 5.x models above) that errs on the dear side.
 */
export function withPrices(
  info: ModelInfo,
  perMtok: { input: number; output: number } | undefined,
): ModelInfo {
  if (!perMtok) return info;
  return { ...info, prices: { ...prices(perMtok.input, perMtok.output, perMtok.input * 0.1) } };
}

/**
 * What a run uses of the table for `id`: its entry (prices overridden by `price_per_mtok` if given) and the
 * effort to send, if the model takes one. An unknown model, or an effort it does not take, gets a notice.
 */
export function resolveModel(
  id: string,
  choices: { effort?: Effort; pricePerMtok?: { input: number; output: number } },
  notice: (message: string) => void,
): { info: ModelInfo; effort: Effort | undefined } {
  const known = modelInfo(id);
  const unknown = known.family === 'unknown';
  if (unknown && !choices.pricePerMtok)
    notice(
      `${id} is not in the model table: costs are estimated at the dearest known prices ($${known.prices.input} / $${known.prices.output} per million tokens); set price_per_mtok to give its real prices.`,
    );
  // An unknown model may well take effort: the user asked for it, so it is sent.
  const effort = choices.effort && (known.defaultEffort || unknown) ? choices.effort : undefined;
  if (choices.effort && !effort)
    notice(`${id} takes no effort setting; effort '${choices.effort}' is not sent.`);
  return { info: withPrices(known, choices.pricePerMtok), effort };
}

/** Estimated cost in USD, rounded to a hundredth of a cent. */
export function estimateCost(prices: Prices, usage: Usage): number {
  const dollars =
    (usage.input_tokens * prices.input +
      usage.output_tokens * prices.output +
      usage.cache_creation_input_tokens * prices.cacheWrite +
      usage.cache_read_input_tokens * prices.cacheRead) /
    1_000_000;
  return Math.round(dollars * 10_000) / 10_000;
}

/** Reply room: thinking models need space to think before they write a long tool call. */
export function outputRoom(info: ModelInfo): { first: number; raised: number } {
  return info.thinking === 'extended'
    ? { first: Math.min(16_000, info.maxOutput), raised: Math.min(64_000, info.maxOutput) }
    : { first: 32_000, raised: info.maxOutput };
}
