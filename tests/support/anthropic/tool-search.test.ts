// The scripted model server's tool search: the API's 400s for its misuse, the search answered from the
// request's deferred tools, a deferred tool callable only once found, and deferred tools out of the prefix.
import { afterEach, describe, expect, it } from 'vitest';
import {
  REGEX_TOOL,
  reply,
  startModelServer,
  text,
  toolSearch,
  toolUse,
  type ScriptedModelServer,
} from './server.js';

let server: ScriptedModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const tool = (name: string, deferred = true) => ({
  name,
  description: `Does ${name}.`,
  input_schema: { type: 'object', properties: {} },
  ...(deferred ? { defer_loading: true } : {}),
});

async function post(body: Record<string, unknown>) {
  const response = await fetch(`${server!.url}/v1/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'anthropic-version': '2023-06-01' },
    body: JSON.stringify({ model: 'claude-sonnet-4-5', max_tokens: 100, ...body }),
  });
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the tests read arbitrary answer fields
  return { status: response.status, body: (await response.json()) as Record<string, any> };
}
const ask = [{ role: 'user', content: 'find the weather tool' }];

describe('tool search in the scripted model server', () => {
  it('answers a search with the deferred tools it matches, and lets the reply call one of them', async () => {
    server = await startModelServer([reply(toolSearch('weather'), toolUse('get_weather', {}))]);
    const { status, body } = await post({
      tools: [tool('bash', false), tool('get_weather'), tool('send_mail'), REGEX_TOOL],
      messages: ask,
    });
    expect(status).toBe(200);
    expect(body.content.map((block: { type: string }) => block.type)).toEqual([
      'server_tool_use',
      'tool_search_tool_result',
      'tool_use',
    ]);
    expect(body.content[1].content).toEqual({
      type: 'tool_search_tool_search_result',
      tool_references: [{ type: 'tool_reference', tool_name: 'get_weather' }],
    });
  });

  it('refuses what the API refuses: every tool deferred, a deferred search tool, an old model, a lost reference', async () => {
    server = await startModelServer([]);
    expect((await post({ tools: [tool('a'), tool('b')], messages: ask })).body.error.message).toBe(
      'All tools have defer_loading set. At least one tool must be non-deferred.',
    );
    expect(
      (await post({ tools: [tool('a', false), { ...REGEX_TOOL, defer_loading: true }], messages: ask })).body
        .error.message,
    ).toMatch(/the tool search tool itself cannot have defer_loading set/);
    expect(
      (await post({ model: 'claude-opus-4-1', tools: [tool('a', false), REGEX_TOOL], messages: ask })).body
        .error.message,
    ).toMatch(/not supported on claude-opus-4-1/);
    const history = [
      ...ask,
      {
        role: 'assistant',
        content: [
          {
            type: 'server_tool_use',
            id: 'srvtoolu_1',
            name: 'tool_search_tool_regex',
            input: { query: 'x' },
          },
          {
            type: 'tool_search_tool_result',
            tool_use_id: 'srvtoolu_1',
            content: {
              type: 'tool_search_tool_search_result',
              tool_references: [{ type: 'tool_reference', tool_name: 'gone' }],
            },
          },
          { type: 'text', text: 'found it' },
        ],
      },
      { role: 'user', content: 'go on' },
    ];
    expect(
      (await post({ tools: [tool('a', false), REGEX_TOOL], messages: history })).body.error.message,
    ).toBe("Tool reference 'gone' has no corresponding tool definition");
  });

  it('will not play a script that calls a deferred tool no search has found', async () => {
    server = await startModelServer([reply(toolUse('get_weather', {}))]);
    const { status } = await post({
      tools: [tool('bash', false), tool('get_weather'), REGEX_TOOL],
      messages: ask,
    });
    expect(status).toBe(400);
    expect(server.violations[0]?.message).toMatch(
      /get_weather, a deferred tool that no tool search has found/,
    );
  });

  it('counts deferred tools out of the prompt', async () => {
    server = await startModelServer([reply(text('a')), reply(text('b'))]);
    const loaded = await post({
      tools: [tool('bash', false), ...Array.from({ length: 30 }, (_, i) => tool(`t${i}`, false))],
      messages: ask,
    });
    const deferred = await post({
      tools: [tool('bash', false), ...Array.from({ length: 30 }, (_, i) => tool(`t${i}`)), REGEX_TOOL],
      messages: ask,
    });
    expect(deferred.body.usage.input_tokens).toBeLessThan(loaded.body.usage.input_tokens / 5);
  });

  it('keeps the cache when a deferred tool joins a later request, and misses it when a tool not deferred does', async () => {
    server = await startModelServer([reply(text('a')), reply(text('b')), reply(text('c'))]);
    const system = [{ type: 'text', text: 'You work. '.repeat(200), cache_control: { type: 'ephemeral' } }];
    const cached = [
      { role: 'user', content: [{ type: 'text', text: 'go', cache_control: { type: 'ephemeral' } }] },
    ];
    const first = await post({ system, tools: [tool('bash', false), REGEX_TOOL], messages: cached });
    expect(first.body.usage.cache_creation_input_tokens).toBeGreaterThan(0);
    const joined = await post({
      system,
      tools: [tool('bash', false), tool('late'), REGEX_TOOL],
      messages: cached,
    });
    expect(joined.body.usage.cache_read_input_tokens).toBe(first.body.usage.cache_creation_input_tokens);
    expect(joined.body.usage.cache_creation_input_tokens).toBe(0);
    const shown = await post({
      system,
      tools: [tool('bash', false), tool('late', false), REGEX_TOOL],
      messages: cached,
    });
    expect(shown.body.usage.cache_read_input_tokens).toBe(0);
    expect(shown.body.usage.cache_creation_input_tokens).toBeGreaterThan(
      first.body.usage.cache_creation_input_tokens,
    );
  });
});
