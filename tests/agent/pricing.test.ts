import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runAgent } from '../../src/agent/loop.js';
import { Model } from '../../src/agent/model.js';
import { estimateCost, priceOf } from '../../src/agent/pricing.js';
import { openWorkspace } from '../../src/agent/workspace.js';
import { reply, startModelServer, text, toolUse } from '../support/anthropic-server.js';

const million = (fields: Partial<Record<string, number>>) => ({
  input_tokens: 0,
  output_tokens: 0,
  cache_creation_input_tokens: 0,
  cache_read_input_tokens: 0,
  ...fields,
});

describe('cost estimates', () => {
  it('prices each kind of token by model family', () => {
    expect(estimateCost('claude-sonnet-5-5', million({ input_tokens: 1e6 }))).toBe(3);
    expect(estimateCost('claude-sonnet-5-5', million({ output_tokens: 1e6 }))).toBe(15);
    expect(estimateCost('claude-sonnet-5-5', million({ cache_creation_input_tokens: 1e6 }))).toBe(3.75);
    expect(estimateCost('claude-sonnet-5-5', million({ cache_read_input_tokens: 1e6 }))).toBe(0.3);
    expect(estimateCost('claude-haiku-4-5', million({ input_tokens: 1e6, output_tokens: 1e6 }))).toBe(6);
    expect(estimateCost('claude-opus-4-5', million({ input_tokens: 1e6 }))).toBe(5);
    expect(estimateCost('claude-opus-4-1', million({ input_tokens: 1e6 }))).toBe(15);
    expect(estimateCost('claude-3-opus-20240229', million({ input_tokens: 1e6 }))).toBe(15);
    expect(estimateCost('claude-3-haiku-20240307', million({ input_tokens: 1e6 }))).toBe(0.25);
  });

  it('prices an unknown model on the safe (expensive) side', () => {
    expect(priceOf('some-new-model').input).toBe(15);
  });

  it('stops a run as incomplete once the estimate passes max_cost_usd', async () => {
    const dir = await openWorkspace(await mkdtemp(join(tmpdir(), 'cost-')));
    // $0.315 a turn with Sonnet prices.
    const usage = {
      input_tokens: 100_000,
      output_tokens: 1_000,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
    };
    const server = await startModelServer(
      [
        { ...reply(toolUse('todo', { items: [{ text: 'a', status: 'in_progress' }] })), usage },
        { ...reply(toolUse('bash', { command: 'true' })), usage },
        { ...reply(toolUse('bash', { command: 'true' })), usage },
        reply(text('never')),
      ],
      { apiKey: 'k-000000' },
    );
    try {
      const result = await runAgent({
        task: 'spend',
        model: new Model({
          apiKey: 'k-000000',
          baseURL: server.url,
          model: 'claude-sonnet-5-5',
          maxRetries: 0,
        }),
        workspace: dir,
        maxCostUsd: 0.5,
      });
      expect(result.status).toBe('incomplete');
      expect(result.turns).toBe(2);
      expect(result.costUsd).toBe(0.63);
      expect(result.reason).toBe('its estimated cost ($0.63) passed the limit of $0.50 (max_cost_usd)');
    } finally {
      await server.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
