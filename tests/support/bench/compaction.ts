// Issue 36, point 5: the same 300-turn script on a model that compacts on the server, once with compaction
// (`--compaction auto`: on demand, as the Anthropic API offers it for the model) and once clearing old tool
// results (`--compaction off`), through the bundled CLI and its `--events` log.
import { longReadRun } from './cli.js';

/** Claude Opus 5.5: the compaction pages list it (Sonnet 5.5 is not on them), with preserved thinking. */
export const COMPACTING_MODEL = 'claude-opus-5-5';

type Usage = {
  input_tokens: number;
  output_tokens: number;
  cache_read_input_tokens: number;
  cache_creation_input_tokens: number;
};
interface Logged {
  type: string;
  kind?: string;
  turn: number;
  usage?: Usage;
  summarized?: boolean;
  result?: { usage: Usage; costUsd: number; compactions?: number };
}

export interface ContextRun {
  compaction: 'auto' | 'off';
  requests: number;
  /** Compactions that brought a summary, or clearings. */
  events: number;
  /** Every input token of the run: uncached, cache reads and writes, the compactions' own included. */
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  /** Cache reads ÷ all input tokens. */
  share: number;
  costUsd: number;
  largestPrompt: number;
  /** Cache writes of the requests right after a compaction or a clearing. */
  writesAfter: number;
}

export interface CompactionComparison {
  model: string;
  turns: number;
  budget: number;
  fileTokens: number;
  compaction: ContextRun;
  clearing: ContextRun;
}

const prompt = (u: Usage) => u.input_tokens + u.cache_read_input_tokens + u.cache_creation_input_tokens;

async function contextRun(
  compaction: 'auto' | 'off',
  turns: number,
  budget: number,
  fileTokens: number,
): Promise<ContextRun> {
  const { run, events } = await longReadRun<Logged>(turns, budget, fileTokens, [
    '--model',
    COMPACTING_MODEL,
    '--compaction',
    compaction,
  ]);
  const result = events.find((e) => e.type === 'end')!.result!;
  const ends = events.filter((e) => e.type === 'turn_end');
  const keptAt = new Set(
    events
      .filter(
        (e) =>
          (e.type === 'compaction' && e.summarized) || (e.type === 'nudge' && e.kind === 'context_cleared'),
      )
      .map((e) => e.turn),
  );
  const { usage } = result;
  return {
    compaction,
    requests: run.requests.length,
    events: keptAt.size,
    inputTokens: prompt(usage),
    outputTokens: usage.output_tokens,
    cacheReadTokens: usage.cache_read_input_tokens,
    cacheWriteTokens: usage.cache_creation_input_tokens,
    share: usage.cache_read_input_tokens / prompt(usage),
    costUsd: result.costUsd,
    largestPrompt: Math.max(...ends.map((e) => prompt(e.usage!))),
    writesAfter: ends
      .filter((e) => keptAt.has(e.turn - 1))
      .reduce((sum, e) => sum + e.usage!.cache_creation_input_tokens, 0),
  };
}

/** Both runs of the same script, held to the same budget. */
export async function measureCompaction(
  turns = 300,
  budget = 200_000,
  fileTokens = 2_500,
): Promise<CompactionComparison> {
  return {
    model: COMPACTING_MODEL,
    turns,
    budget,
    fileTokens,
    compaction: await contextRun('auto', turns, budget, fileTokens),
    clearing: await contextRun('off', turns, budget, fileTokens),
  };
}

/** The comparison as a Markdown table. */
export function compactionTable({ compaction, clearing }: CompactionComparison): string {
  const m = (n: number) => `${(n / 1e6).toFixed(2)}M`;
  const row = (name: string, pick: (r: ContextRun) => string) =>
    `| ${name} | ${pick(compaction)} | ${pick(clearing)} |`;
  return [
    '| | compaction on the server | clearing |',
    '| --- | --- | --- |',
    row('requests', (r) => String(r.requests)),
    row('compactions / clearings', (r) => String(r.events)),
    row('input tokens (cache reads and writes, compactions included)', (r) => m(r.inputTokens)),
    row('output tokens', (r) => m(r.outputTokens)),
    row('cost', (r) => `$${r.costUsd.toFixed(2)}`),
    row('cacheable share', (r) => `${(r.share * 100).toFixed(1)} %`),
    row('largest prompt', (r) => r.largestPrompt.toLocaleString('en-US')),
    row('cache writes after a compaction / clearing', (r) => r.writesAfter.toLocaleString('en-US')),
  ].join('\n');
}
