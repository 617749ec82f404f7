import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runAgent } from '../../src/agent/loop.js';
import { Model } from '../../src/model/client.js';
import { estimateCost, modelInfo, outputRoom, withPrices } from '../../src/model/catalogue.js';
import { openWorkspace } from '../../src/agent/workspace.js';
import {
  MODE_MODEL_ID,
  MODEL_MODES,
  reply,
  startModelServer,
  text,
  toolUse,
  type ModelMode,
  type ScriptedUsage,
} from '../support/anthropic/server.js';

const tokens = (fields: Partial<ScriptedUsage>): ScriptedUsage => ({
  input_tokens: 0,
  output_tokens: 0,
  cache_creation_input_tokens: 0,
  cache_read_input_tokens: 0,
  ...fields,
});
const costOf = (model: string, fields: Partial<ScriptedUsage>) =>
  estimateCost(modelInfo(model).prices, tokens(fields));

/** A run whose every answer reports `usage`; `steps` answers, the last one text. */
async function runWith(
  mode: ModelMode,
  model: string,
  usage: Partial<ScriptedUsage>,
  steps: number,
  options: { maxCostUsd?: number } = {},
) {
  const dir = await openWorkspace(await mkdtemp(join(tmpdir(), 'cost-')));
  const work = [reply(toolUse('todo', { items: [{ text: 'a', status: 'in_progress' }] }))];
  for (let i = 1; i < steps - 1; i++) work.push(reply(toolUse('bash', { command: 'true' })));
  work.push(reply(toolUse('todo', { items: [{ text: 'a', status: 'completed' }] })), reply(text('Done.')));
  const server = await startModelServer(
    work.slice(-steps).map((step) => ({ ...step, usage: tokens(usage) })),
    { apiKey: 'k-000000', mode },
  );
  try {
    const notices: string[] = [];
    const result = await runAgent({
      task: 'spend',
      model: new Model({
        apiKey: 'k-000000',
        baseURL: server.url,
        model,
        maxRetries: 0,
        onNotice: (m) => notices.push(m),
      }),
      workspace: dir,
      ...options,
    });
    return { result, notices, violations: server.violations };
  } finally {
    await server.close();
    await rm(dir, { recursive: true, force: true });
  }
}

describe('the model table', () => {
  it.each([
    ['claude-sonnet-5-5', 1.2],
    ['claude-opus-5-5', 2.4],
    ['claude-fable-5-1', 6],
  ])(
    'prices a run of 4 answers of 100,000 input + 10,000 output tokens on %s at $%s',
    async (model, dollars) => {
      const { result, violations } = await runWith(
        'sonnet-5-5',
        model,
        { input_tokens: 100_000, output_tokens: 10_000 },
        4,
      );
      expect(violations).toEqual([]);
      expect(result.turns).toBe(4);
      expect(result.costUsd).toBe(dollars);
    },
  );

  it('prices cache writes at 1.25× input and cache reads at each model’s own rate', () => {
    expect(costOf('claude-sonnet-5-5', { cache_creation_input_tokens: 1e6 })).toBe(2.5);
    expect(costOf('claude-sonnet-5-5', { cache_read_input_tokens: 1e6 })).toBe(0.1);
    expect(costOf('claude-sonnet-5', { cache_read_input_tokens: 1e6 })).toBe(0.2);
    expect(
      costOf('claude-opus-5-5', { cache_creation_input_tokens: 1e6, cache_read_input_tokens: 1e6 }),
    ).toBe(5.2);
    expect(
      costOf('claude-fable-5-1', { cache_creation_input_tokens: 1e6, cache_read_input_tokens: 1e6 }),
    ).toBe(12.75);
    expect(costOf('claude-haiku-4-5', { input_tokens: 1e6, output_tokens: 1e6 })).toBe(6);
  });

  it('finds the family of dated and cloud platform ids, and never a shorter neighbour', () => {
    expect(modelInfo('claude-sonnet-5-5').family).toBe('claude-sonnet-5-5');
    expect(modelInfo('claude-sonnet-5').family).toBe('claude-sonnet-5');
    expect(modelInfo('claude-sonnet-5-5-20261001').family).toBe('claude-sonnet-5-5');
    expect(modelInfo('claude-haiku-4-5-20251001').family).toBe('claude-haiku-4-5');
    expect(modelInfo('anthropic.claude-opus-5-5-v1:0').family).toBe('claude-opus-5-5');
    expect(modelInfo('us.anthropic.claude-sonnet-5-5-v1:0').family).toBe('claude-sonnet-5-5');
    expect(modelInfo('claude-sonnet-5-5@20260901').family).toBe('claude-sonnet-5-5');
    expect(modelInfo('claude-opus-4-20250514').family).toBe('claude-opus-4');
    expect(modelInfo('claude-opus-4-9').family).toBe('unknown');
    expect(modelInfo('not-claude-sonnet-5-5x').family).toBe('unknown');
  });

  it('gives windows, output room and thinking as data', () => {
    expect(modelInfo('claude-sonnet-5-5')).toMatchObject({
      window: 1_000_000,
      maxOutput: 128_000,
      thinking: 'preserved',
    });
    expect(modelInfo('claude-haiku-4-5')).toMatchObject({
      window: 200_000,
      maxOutput: 64_000,
      thinking: 'extended',
    });
    expect(outputRoom(modelInfo('claude-sonnet-5-5'))).toEqual({ first: 32_000, raised: 128_000 });
    expect(outputRoom(modelInfo('claude-haiku-4-5'))).toEqual({ first: 16_000, raised: 64_000 });
  });

  it('prices an unknown model at the dearest known prices, with one notice, unless price_per_mtok says otherwise', () => {
    const notices: string[] = [];
    const model = new Model({ apiKey: 'k', model: 'claude-next-9', onNotice: (m) => notices.push(m) });
    expect(model.info.prices.input).toBe(15);
    expect(model.info.prices.output).toBe(75);
    expect(notices).toHaveLength(1);
    expect(notices[0]).toMatch(/claude-next-9 is not in the model table.*price_per_mtok/);
    const priced = new Model({
      apiKey: 'k',
      model: 'claude-next-9',
      pricePerMtok: { input: 1, output: 4 },
      onNotice: (m) => notices.push(m),
    });
    expect(notices).toHaveLength(1);
    expect(priced.info.prices).toEqual({ input: 1, output: 4, cacheWrite: 1.25, cacheRead: 0.1 });
    expect(withPrices(modelInfo('claude-sonnet-5-5'), undefined)).toEqual(modelInfo('claude-sonnet-5-5'));
  });
});

describe.each(MODEL_MODES)('max_cost_usd (%s)', (mode) => {
  it('stops a run as incomplete once the estimate passes the limit', async () => {
    // $0.21 a turn at Sonnet 5.5 prices, $0.315 at Sonnet 4.5 prices.
    const model = MODE_MODEL_ID[mode];
    const { result, violations } = await runWith(
      mode,
      model,
      { input_tokens: 100_000, output_tokens: 1_000 },
      5,
      {
        maxCostUsd: 0.5,
      },
    );
    expect(violations).toEqual([]);
    expect(result.status).toBe('incomplete');
    const [turns, cost] = mode === 'sonnet-5-5' ? [3, 0.63] : [2, 0.63];
    expect(result.turns).toBe(turns);
    expect(result.costUsd).toBe(cost);
    expect(result.reason).toBe(
      `its estimated cost ($${cost.toFixed(2)}) passed the limit of $0.50 (max_cost_usd)`,
    );
  });
});
