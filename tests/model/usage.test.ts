// Token counts (src/model/usage.ts): the prompt is every input token, cached or not.
import { describe, expect, it } from 'vitest';
import { emptyUsage, promptTokens } from '../../src/model/usage.js';

describe('usage', () => {
  it('starts from nothing, each time a new object', () => {
    const a = emptyUsage();
    a.input_tokens = 5;
    expect(emptyUsage()).toEqual({
      input_tokens: 0,
      output_tokens: 0,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
    });
  });

  it('counts the prompt as input, cache reads and cache writes, never the output', () => {
    expect(
      promptTokens({
        input_tokens: 3,
        output_tokens: 100,
        cache_creation_input_tokens: 20,
        cache_read_input_tokens: 400,
      }),
    ).toBe(423);
  });
});
