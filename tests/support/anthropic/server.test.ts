import Anthropic, { APIError } from '@anthropic-ai/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import type { ModelServerOptions, ScriptStep, ScriptedModelServer } from './server.js';
import {
  apiError,
  dropConnection,
  estimateInputTokens,
  reply,
  startModelServer,
  text,
  thinking,
  toolUse,
} from './server.js';

const API_KEY = 'sk-test-scripted';
const MODEL = 'claude-scripted-1';

const servers: ScriptedModelServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function serve(script: ScriptStep[], options: ModelServerOptions = {}): Promise<ScriptedModelServer> {
  const server = await startModelServer(script, { apiKey: API_KEY, ...options });
  servers.push(server);
  return server;
}

const clientFor = (server: ScriptedModelServer, maxRetries = 0): Anthropic =>
  new Anthropic({ apiKey: API_KEY, baseURL: server.url, maxRetries });

const TOOLS = [
  {
    name: 'bash',
    description: 'Run a shell command',
    input_schema: { type: 'object' as const, properties: { command: { type: 'string' } } },
  },
  { name: 'todo', description: 'Replace the todo list', input_schema: { type: 'object' as const } },
];

// A request body the tests below bend into each rule break; cast because the SDK types forbid most of them.
type Body = Record<string, unknown>;
const asParams = (body: Body) => body as unknown as Anthropic.MessageCreateParamsNonStreaming;
const base = (overrides: Body = {}): Body => ({
  model: MODEL,
  max_tokens: 1024,
  tools: TOOLS,
  messages: [{ role: 'user', content: 'List the files' }],
  ...overrides,
});

const ask = { role: 'user', content: 'List the files' };
const callBash = {
  role: 'assistant',
  content: [
    { type: 'text', text: 'Let me look.' },
    { type: 'tool_use', id: 'toolu_a', name: 'bash', input: { command: 'ls' } },
  ],
};
const bashResult = { type: 'tool_result', tool_use_id: 'toolu_a', content: 'README.md' };
const reminder = { type: 'text', text: 'Remember to update your todo list.' };

describe('responses the SDK parses', () => {
  it('streams a text reply that finalMessage() reassembles', async () => {
    const server = await serve([reply(text('Hello there, this is a streamed reply.'))]);
    const stream = clientFor(server).messages.stream({
      model: MODEL,
      max_tokens: 1024,
      messages: [{ role: 'user', content: 'Say hello' }],
    });
    const deltas: string[] = [];
    stream.on('text', (delta) => deltas.push(delta));
    const message = await stream.finalMessage();

    expect(message.content).toEqual([
      { type: 'text', text: 'Hello there, this is a streamed reply.', citations: null },
    ]);
    expect(message.stop_reason).toBe('end_turn');
    expect(message.model).toBe(MODEL);
    expect(message.id).toMatch(/^msg_/);
    expect(deltas.length).toBeGreaterThan(1);
    expect(message.usage.input_tokens).toBeGreaterThan(0);
    expect(message.usage.output_tokens).toBeGreaterThan(0);
    expect(server.requests[0]?.body.stream).toBe(true);
    expect(server.violations).toEqual([]);
  });

  it('streams a tool_use input in pieces that parse back to the same object', async () => {
    const input = {
      command: 'grep -rn "TODO" src | head -n 20',
      env: { LANG: 'C.UTF-8' },
      note: 'ünïcødé ✓ 🚀',
    };
    const server = await serve([{ ...reply(text('Searching.'), toolUse('bash', input)), chunkSize: 7 }]);
    const stream = clientFor(server).messages.stream({
      model: MODEL,
      max_tokens: 1024,
      tools: TOOLS,
      messages: [{ role: 'user', content: 'Find the TODOs' }],
    });
    const pieces: string[] = [];
    stream.on('inputJson', (partial) => pieces.push(partial));
    const message = await stream.finalMessage();

    const block = message.content[1];
    expect(block?.type).toBe('tool_use');
    if (block?.type !== 'tool_use') return;
    expect(block.input).toEqual(input);
    expect(block.name).toBe('bash');
    expect(block.id).toMatch(/^toolu_/);
    expect(message.stop_reason).toBe('tool_use');
    expect(pieces.filter((p) => p !== '').length).toBe(
      Math.ceil(Array.from(JSON.stringify(input)).length / 7),
    );
  });

  it('streams a thinking block with its signature', async () => {
    const server = await serve([reply(thinking('First I should plan.', 'sig-123'), text('Planned.'))]);
    const message = await clientFor(server)
      .messages.stream({ model: MODEL, max_tokens: 2048, messages: [{ role: 'user', content: 'Plan it' }] })
      .finalMessage();
    expect(message.content[0]).toEqual({
      type: 'thinking',
      thinking: 'First I should plan.',
      signature: 'sig-123',
    });
  });

  it('answers a non-streaming create with a JSON message and the given usage', async () => {
    const server = await serve([{ ...reply(text('Plain answer')), usage: { output_tokens: 42 } }]);
    const message = await clientFor(server).messages.create({
      model: MODEL,
      max_tokens: 1024,
      messages: [{ role: 'user', content: 'Answer plainly' }],
    });
    expect(message.content).toEqual([{ type: 'text', text: 'Plain answer', citations: null }]);
    expect(message.usage.output_tokens).toBe(42);
    expect(message.usage.input_tokens).toBe(estimateInputTokens(server.requests[0]?.body));
    expect(message._request_id).toMatch(/^req_/);
    expect(server.requests[0]?.body.stream).toBeUndefined();
  });

  it('passes scripted stop reasons through and lets a function step read the request', async () => {
    const server = await serve([
      (request) => {
        expect(request.body.messages).toHaveLength(1);
        return { content: [text('cut off')], stop_reason: 'max_tokens' };
      },
    ]);
    const message = await clientFor(server).messages.create(asParams(base()));
    expect(message.stop_reason).toBe('max_tokens');
    expect(server.remaining()).toBe(0);
  });

  it('reports a mid-stream error event as an SDK error', async () => {
    const server = await serve([
      {
        ...reply(text('partial'), text('never sent')),
        streamError: { type: 'overloaded_error', message: 'Overloaded' },
      },
    ]);
    const stream = clientFor(server).messages.stream({
      model: MODEL,
      max_tokens: 1024,
      messages: [{ role: 'user', content: 'Hi' }],
    });
    const error = await stream.finalMessage().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(APIError);
    expect((error as APIError).type).toBe('overloaded_error');
  });
});

describe('rule breaks answered with 400 invalid_request_error', () => {
  const cases: { rule: string; body: Body; message: RegExp; options?: ModelServerOptions }[] = [
    { rule: 'model missing', body: base({ model: undefined }), message: /^model: Field required$/ },
    {
      rule: 'max_tokens missing',
      body: base({ max_tokens: undefined }),
      message: /^max_tokens: Field required$/,
    },
    {
      rule: 'max_tokens zero',
      body: base({ max_tokens: 0 }),
      message: /^max_tokens: .*greater than or equal to 1/,
    },
    {
      rule: 'max_tokens fractional',
      body: base({ max_tokens: 10.5 }),
      message: /^max_tokens: .*valid integer/,
    },
    { rule: 'messages empty', body: base({ messages: [] }), message: /^messages: at least one message/ },
    { rule: 'messages not a list', body: base({ messages: 'hello' }), message: /^messages: .*valid list/ },
    {
      rule: 'first message not user',
      body: base({ messages: [{ role: 'assistant', content: 'Hi' }, ask] }),
      message: /first message must use the "user" role/,
    },
    {
      rule: 'unknown role',
      body: base({ messages: [ask, { role: 'system', content: 'Be brief' }] }),
      message: /^messages\.1\.role: Input should be 'user' or 'assistant'$/,
    },
    { rule: 'temperature', body: base({ temperature: 0.2 }), message: /^temperature: / },
    { rule: 'top_p', body: base({ top_p: 0.9 }), message: /^top_p: / },
    { rule: 'top_k', body: base({ top_k: 5 }), message: /^top_k: / },
    {
      rule: 'tool_use without tool_result',
      body: base({ messages: [ask, callBash, { role: 'user', content: 'What did you find?' }] }),
      message:
        /^messages\.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_a\. Each/,
    },
    {
      rule: 'tool_result for an unknown id',
      body: base({
        messages: [
          ask,
          callBash,
          { role: 'user', content: [bashResult, { ...bashResult, tool_use_id: 'toolu_x' }] },
        ],
      }),
      message: /unexpected `tool_use_id` found in `tool_result` blocks: toolu_x/,
    },
    {
      rule: 'tool_result with no tool_use before it',
      body: base({ messages: [{ role: 'user', content: [bashResult] }] }),
      message: /^messages\.0\.content\.0: unexpected `tool_use_id` found in `tool_result` blocks: toolu_a/,
    },
    {
      rule: 'text before the tool results',
      body: base({ messages: [ask, callBash, { role: 'user', content: [reminder, bashResult] }] }),
      message: /^messages\.2\.content\.0: `tool_result` blocks must come first/,
    },
    {
      rule: 'text before the tool results across merged user messages',
      body: base({
        messages: [
          ask,
          callBash,
          { role: 'user', content: [reminder] },
          { role: 'user', content: [bashResult] },
        ],
      }),
      message: /^messages\.2\.content\.0: `tool_result` blocks must come first/,
    },
    {
      rule: 'empty text block',
      body: base({ messages: [{ role: 'user', content: [{ type: 'text', text: '' }] }] }),
      message: /^messages: text content blocks must be non-empty$/,
    },
    {
      rule: 'whitespace-only text block',
      body: base({ messages: [{ role: 'user', content: [{ type: 'text', text: ' \n' }] }] }),
      message: /text content blocks must contain non-whitespace text/,
    },
    {
      rule: 'empty text in a tool_result',
      body: base({
        messages: [
          ask,
          callBash,
          { role: 'user', content: [{ ...bashResult, content: [{ type: 'text', text: '' }] }] },
        ],
      }),
      message: /^messages: text content blocks must be non-empty$/,
    },
    {
      rule: 'empty system block',
      body: base({ system: [{ type: 'text', text: '' }] }),
      message: /^system: text content blocks must be non-empty$/,
    },
    {
      rule: 'empty message content',
      body: base({ messages: [ask, { role: 'assistant', content: [] }, ask] }),
      message: /^messages\.1: all messages must have non-empty content/,
    },
    {
      rule: 'more than 4 cache_control markers',
      body: base({
        tools: TOOLS.map((tool) => ({ ...tool, cache_control: { type: 'ephemeral' } })),
        system: [
          { type: 'text', text: 'You are careful.', cache_control: { type: 'ephemeral' } },
          { type: 'text', text: 'Plan first.', cache_control: { type: 'ephemeral' } },
        ],
        messages: [
          { role: 'user', content: [{ type: 'text', text: 'Go', cache_control: { type: 'ephemeral' } }] },
        ],
      }),
      message: /^A maximum of 4 blocks with cache_control may be provided\. Found 5\.$/,
    },
    {
      rule: 'tool_use of a tool not in tools',
      body: base({
        messages: [
          ask,
          { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_b', name: 'deploy', input: {} }] },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_b', content: 'ok' }] },
        ],
      }),
      message: /`tool_use` name `deploy` does not match any tool/,
    },
    {
      rule: 'tool_use without any tools',
      body: base({ tools: undefined, messages: [ask, callBash, { role: 'user', content: [bashResult] }] }),
      message: /must define tools/,
    },
    {
      rule: 'duplicate tool names',
      body: base({ tools: [TOOLS[0], TOOLS[0]] }),
      message: /^tools: Tool names must be unique\.$/,
    },
    {
      rule: 'tool without input_schema',
      body: base({ tools: [{ name: 'bash', description: 'Run' }] }),
      message: /^tools\.0\.custom\.input_schema: Field required$/,
    },
    {
      rule: 'tool input_schema not an object schema',
      body: base({ tools: [{ name: 'bash', input_schema: { type: 'string' } }] }),
      message: /^tools\.0\.custom\.input_schema\.type: Input should be 'object'$/,
    },
    {
      rule: 'final assistant message ending on a tool_use',
      body: base({ messages: [ask, callBash] }),
      message: /final assistant message cannot end with a `tool_use` block/,
    },
    {
      rule: 'prompt longer than the context window',
      body: base({ messages: [{ role: 'user', content: 'x'.repeat(400) }] }),
      options: { contextWindow: 50 },
      message: /^prompt is too long: \d+ tokens > 50 maximum$/,
    },
  ];

  it.each(cases)('$rule', async ({ body, message, options }) => {
    const server = await serve([reply(text('not reached'))], options);
    const error = await clientFor(server)
      .messages.create(asParams(body))
      .then(
        () => undefined,
        (e: unknown) => e,
      );

    expect(error).toBeInstanceOf(Anthropic.BadRequestError);
    expect((error as APIError).type).toBe('invalid_request_error');
    expect((error as APIError).apiMessage).toMatch(message);
    expect(server.violations).toEqual([{ index: 0, message: expect.stringMatching(message) }]);
    expect(server.remaining()).toBe(1); // a refused request does not consume a script step
  });
});

describe('valid conversations', () => {
  it('accepts a two-turn tool exchange replayed from the SDK output', async () => {
    const server = await serve([
      reply(text('Let me look.'), toolUse('bash', { command: 'ls' })),
      reply(text('There is a README.')),
    ]);
    const client = clientFor(server);
    const messages: Anthropic.MessageParam[] = [{ role: 'user', content: 'List the files' }];
    const first = await client.messages
      .stream({ model: MODEL, max_tokens: 1024, tools: TOOLS, messages })
      .finalMessage();
    const call = first.content.find((block) => block.type === 'tool_use');
    expect(call).toBeDefined();
    messages.push({ role: 'assistant', content: first.content });
    messages.push({
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: call?.id ?? '', content: 'README.md' },
        reminder as Anthropic.TextBlockParam,
      ],
    });
    const second = await client.messages
      .stream({ model: MODEL, max_tokens: 1024, tools: TOOLS, messages })
      .finalMessage();

    expect(second.content).toEqual([{ type: 'text', text: 'There is a README.', citations: null }]);
    expect(server.violations).toEqual([]);
    expect(server.remaining()).toBe(0);
    expect(server.requests.map((request) => request.index)).toEqual([0, 1]);
  });

  it('accepts text after the tool results but refuses it before them', async () => {
    const server = await serve([reply(text('ok')), reply(text('ok')), reply(text('spare'))]);
    const client = clientFor(server);
    const after = base({ messages: [ask, callBash, { role: 'user', content: [bashResult, reminder] }] });
    const mergedAfter = base({
      messages: [
        ask,
        callBash,
        { role: 'user', content: [bashResult] },
        { role: 'user', content: [reminder] },
      ],
    });
    const before = base({ messages: [ask, callBash, { role: 'user', content: [reminder, bashResult] }] });

    await expect(client.messages.create(asParams(after))).resolves.toMatchObject({ stop_reason: 'end_turn' });
    await expect(client.messages.create(asParams(mergedAfter))).resolves.toMatchObject({
      stop_reason: 'end_turn',
    });
    await expect(client.messages.create(asParams(before))).rejects.toBeInstanceOf(Anthropic.BadRequestError);
    expect(server.violations).toEqual([
      { index: 2, message: expect.stringMatching(/`tool_result` blocks must come first/) },
    ]);
    expect(server.remaining()).toBe(1);
  });
});

describe('prompt cache accounting', () => {
  const system = [
    { type: 'text', text: 'You are a careful engineer. '.repeat(40), cache_control: { type: 'ephemeral' } },
  ];
  const marked = (content: string) => ({
    role: 'user',
    content: [{ type: 'text', text: content, cache_control: { type: 'ephemeral' } }],
  });

  it('reads the shared prefix from cache on the second request', async () => {
    const server = await serve([reply(text('one')), reply(text('two'))]);
    const client = clientFor(server);
    const firstBody = base({ system, messages: [marked('First question')] });
    const secondBody = base({
      system,
      messages: [ask, { role: 'assistant', content: 'one' }, marked('Second question')],
    });

    const first = await client.messages.create(asParams(firstBody));
    const second = await client.messages.create(asParams(secondBody));

    expect(first.usage.cache_read_input_tokens).toBe(0);
    expect(first.usage.cache_creation_input_tokens).toBeGreaterThan(0);
    expect(second.usage.cache_read_input_tokens).toBeGreaterThan(0);
    for (const [message, body] of [
      [first, firstBody],
      [second, secondBody],
    ] as const) {
      const { input_tokens, cache_read_input_tokens, cache_creation_input_tokens } = message.usage;
      expect(input_tokens + (cache_read_input_tokens ?? 0) + (cache_creation_input_tokens ?? 0)).toBe(
        estimateInputTokens(body),
      );
    }
  });

  it('finds an earlier breakpoint by looking back from a moved marker', async () => {
    const server = await serve([reply(text('one')), reply(text('two'))]);
    const client = clientFor(server);
    const turnOne = [marked('A long first question. '.repeat(20))];
    const unmarkedOne = [
      { role: 'user', content: [{ type: 'text', text: 'A long first question. '.repeat(20) }] },
    ];
    const turnTwo = [...unmarkedOne, { role: 'assistant', content: 'one' }, marked('Next')];

    await client.messages.create(asParams(base({ messages: turnOne })));
    const second = await client.messages.create(asParams(base({ messages: turnTwo })));

    // tools + the first user block were cached by request one; only the new tail is written now
    const cachedPrefix = estimateInputTokens(base({ messages: unmarkedOne }));
    expect(second.usage.cache_read_input_tokens).toBe(cachedPrefix);
    expect(second.usage.cache_creation_input_tokens).toBeGreaterThan(0);
  });

  it('reads nothing when the prefix changed before the breakpoint', async () => {
    const server = await serve([reply(text('one')), reply(text('two'))]);
    const client = clientFor(server);
    await client.messages.create(asParams(base({ system, messages: [ask] })));
    const changed = [{ ...system[0], text: 'A different system prompt.' }];
    const second = await client.messages.create(asParams(base({ system: changed, messages: [ask] })));
    expect(second.usage.cache_read_input_tokens).toBe(0);
  });
});

describe('transport, auth and script control', () => {
  it('recovers from a 429 with retry-after: 0 when the SDK may retry', async () => {
    const server = await serve([
      apiError(429, 'rate_limit_error', 'Number of requests has exceeded your rate limit', {
        'retry-after': '0',
      }),
      reply(text('after the retry')),
    ]);
    const message = await clientFor(server, 2).messages.create(asParams(base()));
    expect(message.content[0]).toMatchObject({ text: 'after the retry' });
    expect(server.requests).toHaveLength(2);
    expect(server.remaining()).toBe(0);
    expect(server.violations).toEqual([]);
  });

  it('gives the scripted error to a client that does not retry', async () => {
    const server = await serve([apiError(529, 'overloaded_error', 'Overloaded')]);
    const error = await clientFor(server)
      .messages.create(asParams(base()))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(APIError);
    expect((error as APIError).status).toBe(529);
    expect((error as APIError).type).toBe('overloaded_error');
    expect((error as APIError).requestID).toMatch(/^req_/);
  });

  it('recovers from a dropped connection when the SDK may retry', async () => {
    const server = await serve([dropConnection(), reply(text('reconnected'))]);
    const message = await clientFor(server, 2)
      .messages.stream({ model: MODEL, max_tokens: 1024, messages: [{ role: 'user', content: 'Hi' }] })
      .finalMessage();
    expect(message.content[0]).toMatchObject({ text: 'reconnected' });
    expect(server.requests).toHaveLength(2);
    expect(server.remaining()).toBe(0);
  });

  it('fails loudly when the script is exhausted', async () => {
    const server = await serve([reply(text('only one'))]);
    const client = clientFor(server);
    await client.messages.create(asParams(base()));
    const error = await client.messages.create(asParams(base())).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Anthropic.BadRequestError);
    expect((error as APIError).apiMessage).toBe('scripted model server: script exhausted after 1 requests');
    expect(server.violations).toEqual([
      { index: 1, message: 'scripted model server: script exhausted after 1 requests' },
    ]);
  });

  it('plays steps pushed after start', async () => {
    const server = await serve([]);
    server.push(reply(text('pushed')));
    expect(server.remaining()).toBe(1);
    const message = await clientFor(server).messages.create(asParams(base()));
    expect(message.content[0]).toMatchObject({ text: 'pushed' });
  });

  it('refuses a request over 32 MB with 413 request_too_large, as the API does, before reading it', async () => {
    const server = await serve([reply(text('never sent'))]);
    const huge = 'x'.repeat(32 * 1000 * 1000);
    const error = await clientFor(server)
      .messages.create(asParams(base({ messages: [{ role: 'user', content: huge }] })))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(APIError);
    expect((error as APIError).status).toBe(413);
    expect((error as APIError).error).toMatchObject({ error: { type: 'request_too_large' } });
    expect(server.violations).toEqual([
      { index: 0, message: 'Request exceeds the maximum allowed number of bytes.' },
    ]);
    // One just under the limit is read, and refused for what it says (its length in tokens).
    const fits = 'x'.repeat(31 * 1000 * 1000);
    const read = await clientFor(server)
      .messages.create(asParams(base({ messages: [{ role: 'user', content: fits }] })))
      .catch((e: unknown) => e);
    expect((read as APIError).status).toBe(400);
    expect((read as APIError).message).toContain('prompt is too long');
  });

  it('refuses a wrong API key with 401 and no violation', async () => {
    const server = await serve([reply(text('unused'))]);
    const client = new Anthropic({ apiKey: 'sk-wrong', baseURL: server.url, maxRetries: 0 });
    await expect(client.messages.create(asParams(base()))).rejects.toBeInstanceOf(
      Anthropic.AuthenticationError,
    );
    expect(server.requests).toHaveLength(1);
    expect(server.violations).toEqual([]);
    expect(server.remaining()).toBe(1);
  });

  it('requires the anthropic-version header', async () => {
    const server = await serve([reply(text('unused'))]);
    const response = await fetch(`${server.url}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': API_KEY },
      body: JSON.stringify(base()),
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({
      type: 'error',
      error: { type: 'invalid_request_error', message: 'anthropic-version: header is required' },
    });
    expect(server.violations).toHaveLength(1);
  });

  it('counts tokens without recording a messages request', async () => {
    const server = await serve([]);
    const body = {
      model: MODEL,
      tools: TOOLS,
      messages: [{ role: 'user' as const, content: 'How long is this?' }],
    };
    const counted = await clientFor(server).messages.countTokens(body);
    expect(counted.input_tokens).toBe(estimateInputTokens(body));
    expect(counted.input_tokens).toBeGreaterThan(0);
    expect(server.requests).toEqual([]);
  });
});
