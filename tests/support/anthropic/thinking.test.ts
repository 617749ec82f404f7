// The `sonnet-5-5` mode of the scripted model server, through the real SDK: signed thinking blocks, the
// prefix check with the API's error, `drop_block` only with its beta header, and the refused settings.
import Anthropic, { APIError } from '@anthropic-ai/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import {
  BINDING_BETA,
  reply,
  startModelServer,
  text,
  toolUse,
  type ScriptStep,
  type ScriptedModelServer,
} from './server.js';

const KEY = 'sk-test-preserved-thinking';
const servers: ScriptedModelServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function serve(script: ScriptStep[]) {
  const server = await startModelServer(script, { apiKey: KEY, mode: 'sonnet-5-5' });
  servers.push(server);
  return { server, client: new Anthropic({ apiKey: KEY, baseURL: server.url, maxRetries: 0 }) };
}

type Body = Record<string, unknown>;
type Block = Record<string, unknown>;
type Turn = { role: string; content: Block[] | string };
const TOOLS = [
  { name: 'bash', input_schema: { type: 'object', properties: { command: { type: 'string' } } } },
];
const SYSTEM = [{ type: 'text', text: 'You are careful.' }];
const params = (messages: Turn[], extra: Body = {}) =>
  ({
    model: 'claude-sonnet-5-5',
    max_tokens: 1024,
    system: SYSTEM,
    tools: TOOLS,
    messages,
    ...extra,
  }) as unknown as Anthropic.MessageCreateParamsNonStreaming;

/** Two real turns: the history a client would hold, with the server's own signed blocks in it. */
async function history(client: Anthropic) {
  const messages: Turn[] = [{ role: 'user', content: 'List the files' }];
  // Each turn ends in a tool call; the next request answers it with this output.
  for (const output of ['a.txt', 'hi']) {
    const turn = await client.messages.create(params(messages));
    messages.push({ role: 'assistant', content: turn.content as unknown as Block[] });
    messages.push({
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: (turn.content.at(-1) as unknown as Block).id, content: output },
      ],
    });
  }
  return messages;
}

const script = (): ScriptStep[] => [
  reply(text('Let me look.'), toolUse('bash', { command: 'ls' })),
  reply(text('Now read it.'), toolUse('bash', { command: 'cat a.txt' })),
  reply(text('Done: a.txt says hi.')),
];

async function refusal(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(APIError);
  expect((error as APIError).status).toBe(400);
  return ((error as APIError).error as { error: { message: string } }).error.message;
}

describe('the sonnet-5-5 mode', () => {
  it('opens each reply with a signed, empty thinking block and returns text before a tool call as thinking', async () => {
    const { client } = await serve(script());
    const messages = await history(client);
    const first = messages[1]!.content as Block[];
    expect(first.map((b) => b.type)).toEqual(['thinking', 'thinking', 'tool_use']);
    expect(first[0]).toMatchObject({ thinking: '' });
    expect(first[0]!.signature).toMatch(/^Ep.{20,}/);
    expect(first[0]!.signature).not.toBe(first[1]!.signature);
    const last = await client.messages.create(params(messages));
    expect(last.content.map((b) => b.type)).toEqual(['thinking', 'text']);
  });

  it('accepts a history sent back exactly, with cache markers moved', async () => {
    const { client, server } = await serve(script());
    const messages = await history(client);
    (messages[2]!.content as Block[])[0]!.cache_control = { type: 'ephemeral' };
    await client.messages.create(params(messages));
    expect(server.violations).toEqual([]);
  });

  it.each([
    [
      'an earlier tool result',
      (m: Turn[]) => ((m[2]!.content as Block[])[0]!.content = 'b.txt'),
      'messages.3.content.0',
    ],
    [
      'the system prompt',
      (m: Turn[], body: Body) => (body.system = [{ type: 'text', text: 'Changed.' }]),
      'messages.1.content.0',
    ],
    [
      'the tools',
      (m: Turn[], body: Body) => (body.tools = [...TOOLS, { name: 'x', input_schema: { type: 'object' } }]),
      'messages.1.content.0',
    ],
    ['the first message', (m: Turn[]) => (m[0]!.content = 'List all files'), 'messages.1.content.0'],
    [
      'a thinking block left out between others',
      (m: Turn[]) => (m[3]!.content as Block[]).splice(0, 1),
      'messages.3.content.0',
    ],
  ])('refuses a replay after a change to %s with the API error', async (_what, change, path) => {
    const { client, server } = await serve(script());
    const messages = await history(client);
    const extra: Body = {};
    change(messages, extra);
    const message = await refusal(client.messages.create(params(messages, extra)));
    expect(message).toBe(
      `${path}: Invalid \`signature\` in \`thinking\` block. The block is bound to a different conversation. ` +
        'Remove the block, or set `thinking.block_binding.prefix_mismatch_behavior` to "drop_block". ' +
        `That setting requires the \`${BINDING_BETA}\` value in the \`anthropic-beta\` header.`,
    );
    expect(server.violations).toHaveLength(1);
  });

  it('accepts a changed history once the thinking of every retained turn is removed', async () => {
    const { client, server } = await serve(script());
    const messages = await history(client);
    (messages[2]!.content as Block[])[0]!.content = '[cleared]';
    for (const m of messages)
      if (m.role === 'assistant') m.content = (m.content as Block[]).filter((b) => b.type !== 'thinking');
    const answer = await client.messages.create(params(messages));
    expect(answer.content[0]!.type).toBe('thinking');
    expect(server.violations).toEqual([]);
  });

  it('drops the bound blocks with drop_block only when the beta header comes with it', async () => {
    const { client, server } = await serve(script());
    const messages = await history(client);
    (messages[2]!.content as Block[])[0]!.content = '[cleared]';
    const dropBlock = {
      thinking: { type: 'adaptive', block_binding: { prefix_mismatch_behavior: 'drop_block' } },
    };
    expect(await refusal(client.messages.create(params(messages, dropBlock)))).toContain(
      `requires the \`${BINDING_BETA}\` value in the \`anthropic-beta\` header`,
    );
    const answer = await client.messages.create(params(messages, dropBlock), {
      headers: { 'anthropic-beta': BINDING_BETA },
    });
    expect((answer as unknown as { input_transformations: Block[] }).input_transformations).toEqual([
      { type: 'thinking_dropped', path: 'messages.3.content.0', reason: 'prefix_mismatch' },
      { type: 'thinking_dropped', path: 'messages.3.content.1', reason: 'prefix_mismatch' },
    ]);
    expect(server.violations).toHaveLength(1);
  });

  it.each([
    ['thinking disabled', { thinking: { type: 'disabled' } }, /lowest setting is "between_tools"/],
    [
      'a thinking budget',
      { thinking: { type: 'enabled', budget_tokens: 2000 } },
      /budgets are not supported/,
    ],
    ['forced tool choice (any)', { tool_choice: { type: 'any' } }, /forced tool use/],
    ['forced tool choice (tool)', { tool_choice: { type: 'tool', name: 'bash' } }, /forced tool use/],
    ['temperature', { temperature: 0.2 }, /sampling parameters/],
    ['top_p', { top_p: 0.9 }, /sampling parameters/],
    ['an unknown effort', { output_config: { effort: 'huge' } }, /output_config.effort/],
    [
      'between_tools with effort max',
      { thinking: { type: 'between_tools' }, output_config: { effort: 'max' } },
      /low, medium or high/,
    ],
  ])('refuses %s with a 400', async (_what, extra, expected) => {
    const { client, server } = await serve([reply(text('never'))]);
    expect(await refusal(client.messages.create(params([{ role: 'user', content: 'hi' }], extra)))).toMatch(
      expected,
    );
    expect(server.remaining()).toBe(1);
  });

  it('refuses assistant prefill, and takes effort and between_tools as documented', async () => {
    const { client, server } = await serve([reply(text('ok')), reply(text('ok'))]);
    const prefill = [
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: [{ type: 'text', text: 'Sure' }] },
    ];
    expect(await refusal(client.messages.create(params(prefill)))).toMatch(/prefill/);
    await client.messages.create(
      params([{ role: 'user', content: 'hi' }], { output_config: { effort: 'xhigh' } }),
    );
    await client.messages.create(
      params([{ role: 'user', content: 'hi' }], {
        thinking: { type: 'between_tools' },
        output_config: { effort: 'low' },
      }),
    );
    expect(server.violations).toHaveLength(1);
  });
});
