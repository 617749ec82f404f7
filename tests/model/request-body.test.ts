// The request encoder: the same JSON as encoding the whole request at once, reused message by message.
import type Anthropic from '@anthropic-ai/sdk';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { clearOldToolResults } from '../../src/agent/context/clearing.js';
import { withCacheBreakpoints } from '../../src/model/client.js';
import { type MessageParam } from '../../src/model/messages.js';
import { encodeRequestBody } from '../../src/model/request-body.js';

type Params = Anthropic.MessageCreateParamsStreaming;

const decode = (bytes: Uint8Array): unknown => JSON.parse(new TextDecoder().decode(bytes));
const asJson = (value: unknown): unknown => JSON.parse(JSON.stringify(value));

function params(messages: MessageParam[], extra: Partial<Params> = {}): Params {
  return {
    model: 'claude-test',
    max_tokens: 1024,
    system: [{ type: 'text', text: 'You are a test.', cache_control: { type: 'ephemeral' } }],
    tools: [{ name: 'read_file', description: 'Reads.', input_schema: { type: 'object', properties: {} } }],
    messages,
    stream: true,
    ...extra,
  };
}

function toolTurn(n: number, output: string): MessageParam[] {
  return [
    {
      role: 'assistant',
      content: [
        { type: 'text', text: `Step ${n}: reading « ünïcode » \u2028 "quotes" \\ ` },
        { type: 'tool_use', id: `toolu_${n}`, name: 'read_file', input: { path: `f${n}.txt` } },
      ],
    },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: `toolu_${n}`, content: output }] },
  ];
}

describe('encodeRequestBody', () => {
  it('gives the same JSON as encoding the whole request at once, request after request', () => {
    const history: MessageParam[] = [{ role: 'user', content: 'The task.' }];
    for (let n = 1; n <= 12; n++) {
      history.push(...toolTurn(n, `output ${n} `.repeat(n * 50)));
      const request = params(withCacheBreakpoints(history));
      expect(decode(encodeRequestBody(request))).toEqual(asJson(request));
    }
  });

  it('leaves out undefined fields, as JSON.stringify does', () => {
    const request = params([{ role: 'user', content: 'Hi' }], { metadata: undefined, tools: undefined });
    const body = decode(encodeRequestBody(request)) as Record<string, unknown>;
    expect(Object.keys(body).sort()).toEqual(['max_tokens', 'messages', 'model', 'stream', 'system']);
  });

  it('sends cleared tool results once context clearing replaced them', () => {
    const history: MessageParam[] = [{ role: 'user', content: 'The task.' }];
    for (let n = 1; n <= 8; n++) history.push(...toolTurn(n, `long output ${n}`));
    encodeRequestBody(params(history));
    expect(clearOldToolResults(history)).toBeGreaterThan(0);
    const body = decode(encodeRequestBody(params(history)));
    expect(body).toEqual(asJson(params(history)));
    expect(JSON.stringify(body)).toContain('[old tool result cleared]');
    expect(JSON.stringify(body)).not.toContain('long output 1"');
  });

  it('freezes what it encoded, so a change in place throws instead of sending stale bytes', () => {
    const message: MessageParam = { role: 'user', content: [{ type: 'text', text: 'before' }] };
    encodeRequestBody(params([message]));
    const block = (message.content as Anthropic.TextBlockParam[])[0]!;
    expect(() => {
      block.text = 'after';
    }).toThrow(TypeError);
    expect(() => (message.content as unknown[]).push({ type: 'text', text: 'more' })).toThrow(TypeError);
    expect(decode(encodeRequestBody(params([message])))).toEqual(asJson(params([message])));
  });

  it('reads a tool input that is a getter, as the SDK stream helper returns it', () => {
    const block = { type: 'tool_use', id: 'toolu_1', name: 'read_file' } as Record<string, unknown>;
    Object.defineProperty(block, 'input', { enumerable: true, get: () => ({ path: 'a.txt' }) });
    const history = [
      { role: 'user', content: 'Go.' },
      { role: 'assistant', content: [block] },
    ] as MessageParam[];
    const body = decode(encodeRequestBody(params(history))) as { messages: { content: unknown[] }[] };
    expect(body.messages[1]!.content[0]).toEqual({
      type: 'tool_use',
      id: 'toolu_1',
      name: 'read_file',
      input: { path: 'a.txt' },
    });
  });

  it('matches JSON.stringify for any text, including lone surrogates and control characters', () => {
    fc.assert(
      fc.property(
        fc.array(fc.string({ unit: 'binary', maxLength: 40 }), { minLength: 1, maxLength: 8 }),
        (texts) => {
          const history: MessageParam[] = texts.map((text, index) => ({
            role: index % 2 === 0 ? 'user' : 'assistant',
            content: [{ type: 'text', text }],
          }));
          const request = params(history);
          expect(decode(encodeRequestBody(request))).toEqual(
            decode(new TextEncoder().encode(JSON.stringify(request))),
          );
        },
      ),
    );
  });
});
