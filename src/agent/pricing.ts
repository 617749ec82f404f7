// Token prices per model family (USD per million tokens) and what a run's usage is estimated to cost.
import type { Usage } from './events.js';

interface Price {
  input: number;
  output: number;
  cacheWrite: number;
  cacheRead: number;
}

const price = (input: number, output: number): Price => ({
  input,
  output,
  cacheWrite: input * 1.25, // 5-minute cache writes cost 1.25× input
  cacheRead: input * 0.1,
});

/** Published list prices by family; first match wins. An unknown model is priced as Opus, the safe side. */
const PRICES: Array<[RegExp, Price]> = [
  [/claude-3-haiku|haiku-3/, price(0.25, 1.25)],
  [/haiku/, price(1, 5)],
  [/sonnet/, price(3, 15)],
  [/claude-3-opus|opus-3|opus-4-[01]|opus-4-2025/, price(15, 75)],
  [/opus|mythos|fable/, price(5, 25)],
];
const FALLBACK = price(15, 75);

/** The context window we plan for; larger windows need a beta header this action does not send. */
export const DEFAULT_CONTEXT_WINDOW = 200_000;

export function priceOf(model: string): Price {
  return PRICES.find(([pattern]) => pattern.test(model))?.[1] ?? FALLBACK;
}

/** Estimated cost in USD, rounded to a hundredth of a cent. */
export function estimateCost(model: string, usage: Usage): number {
  const p = priceOf(model);
  const dollars =
    (usage.input_tokens * p.input +
      usage.output_tokens * p.output +
      usage.cache_creation_input_tokens * p.cacheWrite +
      usage.cache_read_input_tokens * p.cacheRead) /
    1_000_000;
  return Math.round(dollars * 10_000) / 10_000;
}
