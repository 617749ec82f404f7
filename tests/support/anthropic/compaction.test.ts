// The scripted server plays compaction the way the docs say the API does: each misuse gets its 400.
import Anthropic from '@anthropic-ai/sdk';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { reply, startModelServer, text, type ScriptedModelServer } from './server.js';
import { ON_DEMAND_BETA, THRESHOLD_BETA } from './compaction.js';

let server: ScriptedModelServer;
beforeEach(async () => {
  server = await startModelServer([reply(text('one')), reply(text('two')), reply(text('three'))]);
});
afterEach(() => server.close());

const MODEL = 'claude-opus-5-5';
const history = [
  { role: 'user', content: 'Name the entities of a recipe app.' },
  { role: 'assistant', content: 'Recipe, Ingredient and Step.' },
  { role: 'user', content: 'Now the fields of Recipe.' },
];

async function post(body: Record<string, unknown>, betas: string[] = [ON_DEMAND_BETA]) {
  const response = await fetch(`${server.url}/v1/messages`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'anthropic-version': '2023-06-01',
      ...(betas.length ? { 'anthropic-beta': betas.join(',') } : {}),
    },
    body: JSON.stringify({ model: MODEL, max_tokens: 4096, messages: history, ...body }),
  });
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the API's JSON, read field by field
  return { status: response.status, json: (await response.json()) as any };
}

/** A block as the server returns it on demand. */
async function summary() {
  const { status, json } = await post({ compaction: { type: 'summarize' } });
  expect(status).toBe(200);
  return json.content[0] as Record<string, unknown>;
}

const next = (block: unknown) => [
  { role: 'assistant', content: [block] },
  { role: 'user', content: 'Go on.' },
];

describe('compaction on demand', () => {
  it('answers the block alone, stop_reason compaction, top-level usage zero and the tokens in usage.iterations; no script step is used', async () => {
    const { json } = await post({ compaction: { type: 'summarize' } });
    expect(json.stop_reason).toBe('compaction');
    expect(json.content).toHaveLength(1);
    expect(json.content[0]).toMatchObject({
      type: 'compaction',
      content: expect.stringContaining('<summary>'),
    });
    expect(json.content[0].signature).toEqual(expect.any(String));
    expect(json.usage.input_tokens).toBe(0);
    expect(json.usage.output_tokens).toBe(0);
    expect(json.usage.iterations).toEqual([expect.objectContaining({ type: 'compaction' })]);
    expect(json.usage.iterations[0].input_tokens).toBeGreaterThan(0);
    expect(server.remaining()).toBe(3);
  });

  it('takes the block first in a later request, exactly as returned, and reads the summary in place of the history', async () => {
    const block = await summary();
    const { status, json } = await post({ messages: next(block) });
    expect(status).toBe(200);
    expect(json.content[0].text).toBe('one');
    // Two assistant messages in a row are fine while the block comes first.
    const kept = [
      { role: 'assistant', content: [block] },
      { role: 'assistant', content: 'A reply.' },
      history[2],
    ];
    expect((await post({ messages: kept })).status).toBe(200);
  });

  it('streams the block whole: the SDK beta stream gives it back field for field', async () => {
    const client = new Anthropic({ apiKey: 'sk-ant-test', baseURL: server.url, maxRetries: 0 });
    const message = await client.beta.messages
      .stream({
        model: MODEL,
        max_tokens: 4096,
        messages: history as Anthropic.Beta.BetaMessageParam[],
        compaction: { type: 'summarize' },
        betas: [ON_DEMAND_BETA],
      })
      .finalMessage();
    expect(message.stop_reason).toBe('compaction');
    const block = message.content[0] as unknown as Record<string, unknown>;
    expect((await post({ messages: next(block) })).status).toBe(200);
    expect(message.usage.iterations?.[0]?.type).toBe('compaction');
  });

  it.each([
    [
      'no beta header',
      { compaction: { type: 'summarize' } },
      [],
      /requires anthropic-beta: compact-2026-09-04/,
      undefined,
    ],
    [
      'both kinds in one request',
      { compaction: { type: 'summarize' }, context_management: { edits: [{ type: 'compact_20260112' }] } },
      [ON_DEMAND_BETA, THRESHOLD_BETA],
      /cannot be combined with `context_management`/,
      undefined,
    ],
    [
      'an unsupported model',
      { compaction: { type: 'summarize' }, model: 'claude-sonnet-5-5' },
      [ON_DEMAND_BETA],
      /does not support compaction/,
      undefined,
    ],
    [
      'stop_sequences',
      { compaction: { type: 'summarize' }, stop_sequences: ['x'] },
      [ON_DEMAND_BETA],
      /stop_sequences/,
      undefined,
    ],
    [
      'a forced tool_choice',
      { compaction: { type: 'summarize' }, tool_choice: { type: 'any' } },
      [ON_DEMAND_BETA],
      /tool_choice/,
      undefined,
    ],
    [
      'a last assistant turn with an open tool call',
      {
        compaction: { type: 'summarize' },
        tools: [{ name: 'bash', description: 'd', input_schema: { type: 'object' } }],
        messages: [
          ...history,
          { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'bash', input: {} }] },
        ],
      },
      [ON_DEMAND_BETA],
      /tool call with no result/,
      'compaction_incomplete_turn',
    ],
  ])('refuses a compaction request with %s', async (_, body, betas, message, code) => {
    const { status, json } = await post(body, betas);
    expect(status).toBe(400);
    expect(json.error.message).toMatch(message);
    expect(json.error.details?.error_code).toBe(code);
    expect(server.violations).toHaveLength(1);
  });

  it('refuses a block sent back anywhere but first, changed, signed wrongly, with extra fields, twice, or without its beta', async () => {
    const block = await summary();
    const refusal = async (messages: unknown[], betas = [ON_DEMAND_BETA]) => {
      const { status, json } = await post({ messages }, betas);
      expect(status).toBe(400);
      return {
        message: json.error.message as string,
        code: json.error.details?.error_code as string | undefined,
      };
    };
    expect((await refusal([history[0], ...next(block)])).code).toBe('compaction_block_misplaced');
    expect((await refusal(next({ ...block, content: 'A summary of my own.' }))).code).toBe(
      'compaction_content_mismatch',
    );
    expect((await refusal(next({ ...block, signature: 'forged' }))).code).toBe(
      'compaction_signature_invalid',
    );
    expect((await refusal(next({ ...block, citations: null }))).message).toMatch(
      /compaction\.citations: Extra inputs are not permitted/,
    );
    const second = await summary();
    const both = [
      { role: 'assistant', content: [block, second] },
      { role: 'user', content: 'Go on.' },
    ];
    expect((await refusal(both)).code).toBe('compaction_block_ambiguous');
    expect((await refusal(next(block), [])).message).toMatch(
      /'compaction' is not one of the expected content block types/,
    );
    // Threshold compaction cannot run on a request that carries a signed block.
    const edit = { type: 'compact_20260112', trigger: { type: 'input_tokens', value: 50_000 } };
    const { status, json } = await post({ messages: next(block), context_management: { edits: [edit] } }, [
      ON_DEMAND_BETA,
      THRESHOLD_BETA,
    ]);
    expect(status).toBe(400);
    expect(json.error.message).toMatch(/cannot run on a request that carries a signed compaction block/);
  });
});

describe('compaction at a threshold', () => {
  const edit = (value: number) => ({
    context_management: { edits: [{ type: 'compact_20260112', trigger: { type: 'input_tokens', value } }] },
  });

  it('refuses a trigger under 50,000 tokens and a request without its beta', async () => {
    const low = await post(edit(49_999), [THRESHOLD_BETA]);
    expect(low.status).toBe(400);
    expect(low.json.error.message).toMatch(/greater than or equal to 50000/);
    const bare = await post(edit(50_000), []);
    expect(bare.status).toBe(400);
    expect(bare.json.error.message).toMatch(/requires anthropic-beta: compact-2026-01-12/);
  });

  it('below the trigger answers as usual (with usage.iterations); past it the block starts the answer and what precedes it is ignored', async () => {
    const quiet = await post(edit(50_000), [THRESHOLD_BETA]);
    expect(quiet.json.content.map((b: { type: string }) => b.type)).toEqual(['text']);
    expect(quiet.json.usage.iterations).toEqual([expect.objectContaining({ type: 'message' })]);
    const long = [{ role: 'user', content: 'x '.repeat(120_000) }, ...history.slice(1)];
    const { json } = await post({ ...edit(50_000), messages: long }, [THRESHOLD_BETA]);
    expect(json.content.map((b: { type: string }) => b.type)).toEqual(['compaction', 'text']);
    expect(json.usage.iterations.map((i: { type: string }) => i.type)).toEqual(['compaction', 'message']);
    // The top-level counts are the reply's alone: far below the compacted prompt.
    expect(json.usage.input_tokens).toBeLessThan(json.usage.iterations[0].input_tokens / 10);
    // Sent back after the old history, the block makes the API ignore what precedes it.
    const after = [
      ...long,
      { role: 'assistant', content: json.content },
      { role: 'user', content: 'Go on.' },
    ];
    const again = await post({ ...edit(50_000), messages: after }, [THRESHOLD_BETA]);
    expect(again.status).toBe(200);
    expect(again.json.content.map((b: { type: string }) => b.type)).toEqual(['text']);
    const changed = [
      { role: 'assistant', content: [{ ...json.content[0], content: 'mine' }] },
      { role: 'user', content: 'Go on.' },
    ];
    expect(
      (await post({ ...edit(50_000), messages: changed }, [THRESHOLD_BETA])).json.error.details.error_code,
    ).toBe('compaction_content_mismatch');
  });
});
