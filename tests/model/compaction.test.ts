import { describe, expect, it } from 'vitest';
import { compactionFor, modelInfo } from '../../src/model/catalogue.js';
import { compactionBlock, compactionFields, compactionUsage } from '../../src/model/compaction.js';
import { BETA, MIN_TRIGGER_TOKENS, SUMMARY_INSTRUCTIONS } from '../../src/model/compaction.js';
import type { Message } from '../../src/model/messages.js';

describe('which compaction a run uses (the catalogue)', () => {
  it('on demand where offered, at a threshold on Bedrock, none for a model the pages do not list', () => {
    const opus = modelInfo('claude-opus-5-5');
    expect(compactionFor(opus, 'anthropic')).toBe('on-demand');
    expect(compactionFor(opus, 'vertex')).toBe('on-demand');
    expect(compactionFor(modelInfo('anthropic.claude-opus-4-6-v1:0'), 'bedrock')).toBe('threshold');
    for (const id of [
      'claude-sonnet-5-5',
      'claude-haiku-4-5',
      'claude-haiku-5-5',
      'claude-sonnet-4-5',
      'my-gateway-model',
    ])
      expect(compactionFor(modelInfo(id), 'anthropic'), id).toBeUndefined();
  });
});

describe('the request fields', () => {
  it('asks for a summary with instructions for findings, decisions and failed attempts, not the list', () => {
    const fields = compactionFields('on-demand', { summarize: true }) as {
      compaction: { type: string; instructions: string };
    };
    expect(fields).toEqual({ compaction: { type: 'summarize', instructions: SUMMARY_INSTRUCTIONS } });
    expect(SUMMARY_INSTRUCTIONS).toMatch(/findings[\s\S]*decisions[\s\S]*failed/);
    expect(SUMMARY_INSTRUCTIONS).toMatch(/Leave out the todo list/);
    expect(SUMMARY_INSTRUCTIONS).toMatch(/Do not call any tools/);
    expect(SUMMARY_INSTRUCTIONS.length).toBeLessThan(16_384);
    // An ordinary request on demand carries nothing but the beta header.
    expect(compactionFields('on-demand', { trigger: 90_000 })).toEqual({});
  });

  it('puts the threshold edit on ordinary requests only with a trigger the API takes (at least 50,000)', () => {
    expect(compactionFields('threshold', { trigger: 75_000.6 })).toEqual({
      context_management: {
        edits: [
          {
            type: 'compact_20260112',
            trigger: { type: 'input_tokens', value: 75_000 },
            instructions: SUMMARY_INSTRUCTIONS,
          },
        ],
      },
    });
    expect(compactionFields('threshold', { trigger: MIN_TRIGGER_TOKENS - 1 })).toEqual({});
    expect(compactionFields('threshold', {})).toEqual({});
    expect(BETA).toEqual({ 'on-demand': 'compact-2026-09-04', threshold: 'compact-2026-01-12' });
  });
});

describe('the response', () => {
  const message = (content: unknown[], iterations?: unknown[]) =>
    ({ content, usage: { input_tokens: 10, output_tokens: 5, iterations } }) as unknown as Message;

  it('sums the compaction iterations only (the top-level counts leave them out)', () => {
    const usage = compactionUsage(
      message(
        [],
        [
          {
            type: 'compaction',
            input_tokens: 1000,
            output_tokens: 300,
            cache_read_input_tokens: 5000,
            cache_creation_input_tokens: 0,
          },
          {
            type: 'message',
            input_tokens: 10,
            output_tokens: 5,
            cache_read_input_tokens: 0,
            cache_creation_input_tokens: 0,
          },
        ],
      ),
    );
    expect(usage).toEqual({
      input_tokens: 1000,
      output_tokens: 300,
      cache_read_input_tokens: 5000,
      cache_creation_input_tokens: 0,
    });
    expect(compactionUsage(message([]))).toEqual({
      input_tokens: 0,
      output_tokens: 0,
      cache_read_input_tokens: 0,
      cache_creation_input_tokens: 0,
    });
  });

  it('finds the block where the answer has one', () => {
    const block = { type: 'compaction', content: 'summary', signature: 's' };
    expect(compactionBlock(message([block]))).toBe(block);
    expect(compactionBlock(message([{ type: 'text', text: 'hi' }]))).toBeUndefined();
  });
});
