// The model client against the scripted server over real HTTP: retries, fail-fast errors, readable failures.
import Anthropic from '@anthropic-ai/sdk';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  classifyModelError,
  isMidStreamFailure,
  Model,
  withCacheBreakpoints,
} from '../../src/model/client.js';
import { type MessageParam } from '../../src/model/messages.js';
import {
  apiError,
  dropConnection,
  reply,
  startModelServer,
  text,
  type ScriptStep,
  type ScriptedModelServer,
  type ScriptedResponse,
} from '../support/anthropic/server.js';
import { failure, testTurn } from '../support/model-turns.js';

const KEY = 'sk-ant-model-test-0000000000000000000';
let server: ScriptedModelServer | undefined;
let raw: Server | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
  if (raw) {
    raw.closeAllConnections();
    await new Promise((resolve) => raw!.close(resolve));
  }
  raw = undefined;
  vi.unstubAllEnvs();
});

async function modelFor(script: ScriptStep[], maxRetries?: number): Promise<Model> {
  server = await startModelServer(script, { apiKey: KEY });
  return new Model({ apiKey: KEY, baseURL: server.url, model: 'claude-test', maxRetries });
}

// The SDK waits this long before a retry when the server says so; without it the wait is 0.5–8 s.
const FAST = { 'retry-after-ms': '10' };

describe('Model.send', () => {
  it('streams one request with the model id, a cached system prompt and a cache marker on the user turn', async () => {
    const model = await modelFor([reply(text('Hello.'))]);
    const message = await model.send(testTurn());
    expect(message.content).toEqual([expect.objectContaining({ type: 'text', text: 'Hello.' })]);
    const body = server!.requests[0]!.body;
    expect(body).toMatchObject({ model: 'claude-test', max_tokens: 1024, stream: true });
    expect(body.system).toEqual([
      { type: 'text', text: 'You are a test.', cache_control: { type: 'ephemeral' } },
    ]);
    expect(body.messages[0].content.at(-1).cache_control).toEqual({ type: 'ephemeral' });
    expect(server!.violations).toEqual([]);
  });

  it.each([
    ['429 rate_limit_error', apiError(429, 'rate_limit_error', 'Number of requests exceeded', FAST)],
    ['500 api_error', apiError(500, 'api_error', 'Internal server error', FAST)],
    ['529 overloaded_error', apiError(529, 'overloaded_error', 'Overloaded', FAST)],
    ['a dropped connection', dropConnection()],
  ])('retries %s and returns the next answer', async (_name, fault) => {
    const model = await modelFor([fault, reply(text('Recovered.'))]);
    const message = await model.send(testTurn());
    expect(message.content[0]).toMatchObject({ text: 'Recovered.' });
    expect(server!.requests).toHaveLength(2);
    expect(server!.remaining()).toBe(0);
  });

  it('sends the request again when the stream breaks with an overloaded_error event', async () => {
    const model = await modelFor([
      {
        ...reply(text('partial'), text('lost')),
        streamError: { type: 'overloaded_error', message: 'Overloaded' },
      },
      reply(text('Whole answer.')),
    ]);
    const message = await model.send(testTurn());
    expect(message.content.map((block) => (block.type === 'text' ? block.text : ''))).toEqual([
      'Whole answer.',
    ]);
    expect(server!.requests).toHaveLength(2);
    // Both attempts carry the same conversation.
    expect(server!.requests[1]!.body.messages).toEqual(server!.requests[0]!.body.messages);
  });

  it('sends the request again when the connection is cut in the middle of the stream', async () => {
    let requests = 0;
    raw = createServer((req, res) => {
      requests++;
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        if (requests === 1) {
          res.write(sse('message_start', { type: 'message_start', message: startedMessage() }));
          // Headers and the first event are out; now the connection dies.
          setImmediate(() => res.socket?.destroy());
          return;
        }
        res.end(wholeStream('After the cut.'));
      });
    });
    await new Promise<void>((resolve) => raw!.listen(0, '127.0.0.1', resolve));
    const { port } = raw.address() as AddressInfo;
    const model = new Model({ apiKey: KEY, baseURL: `http://127.0.0.1:${port}` });
    const message = await model.send(testTurn());
    expect(message.content[0]).toMatchObject({ type: 'text', text: 'After the cut.' });
    expect(requests).toBe(2);
  });

  it.each([
    [400, 'invalid_request_error', 'messages: Field required'],
    [401, 'authentication_error', 'invalid x-api-key'],
    [403, 'permission_error', 'Your API key does not have permission to use the specified resource.'],
  ])('fails fast on %i: one request, no retry', async (status, type, message) => {
    const model = await modelFor([apiError(status, type, message), reply(text('never'))]);
    const error = await failure(model.send(testTurn()));
    expect(error).toBeInstanceOf(Anthropic.APIError);
    expect(server!.requests).toHaveLength(1);
    expect(server!.remaining()).toBe(1);
  });

  it.each([
    [
      'gives up after maxRetries retries and reports the last status',
      apiError(500, 'api_error', 'Internal server error', FAST),
      'the Anthropic API answered 500: Internal server error',
    ],
    [
      'gives up on a stream that keeps breaking after maxRetries attempts',
      {
        ...reply(text('partial'), text('lost')),
        streamError: { type: 'overloaded_error', message: 'Overloaded' },
      },
      'the Anthropic API stream failed (overloaded_error: Overloaded)',
    ],
  ])('%s', async (_case, fault, message) => {
    const model = await modelFor([fault, fault, reply(text('never'))], 1);
    const error = await failure(model.send(testTurn()));
    expect(server!.requests).toHaveLength(2);
    expect(classifyModelError(error)).toEqual({ kind: 'other', message });
  });

  it('stops waiting to retry as soon as the run is cancelled', async () => {
    const controller = new AbortController();
    const model = await modelFor([
      () => {
        controller.abort();
        return apiError(500, 'api_error', 'Internal server error', { 'retry-after-ms': '60000' });
      },
      reply(text('never')),
    ]);
    const error = await failure(model.send(testTurn({ signal: controller.signal })));
    expect(classifyModelError(error)).toEqual({ kind: 'cancelled', message: 'the run was cancelled' });
    expect(server!.requests).toHaveLength(1);
  });

  it('stops between stream attempts when the run is cancelled', async () => {
    const controller = new AbortController();
    const model = await modelFor([
      (): ScriptedResponse => {
        setImmediate(() => controller.abort());
        return {
          ...reply(text('partial'), text('lost')),
          streamError: { type: 'overloaded_error', message: 'Overloaded' },
        };
      },
      reply(text('never')),
    ]);
    const error = await failure(model.send(testTurn({ signal: controller.signal })));
    expect(classifyModelError(error).kind).toBe('cancelled');
    expect(server!.remaining()).toBe(1);
  });

  it('refuses to start without an API key, saying where to set one', () => {
    vi.stubEnv('ANTHROPIC_API_KEY', '');
    expect(() => new Model({})).toThrow(/set ANTHROPIC_API_KEY \(or the anthropic_api_key input\)/);
  });
});

describe('classifyModelError', () => {
  it('reads a 400 about the prompt length as a full context window', async () => {
    const model = await modelFor([
      apiError(400, 'invalid_request_error', 'prompt is too long: 210000 tokens > 200000 maximum'),
    ]);
    const failed = classifyModelError(await failure(model.send(testTurn())));
    expect(failed.kind).toBe('context_window');
    expect(failed.message).toContain('prompt is too long');
  });

  it.each([
    [401, 'authentication_error', 'invalid x-api-key'],
    [403, 'permission_error', 'not allowed'],
  ])('calls %i a refusal of the credentials, with the API message', async (status, type, message) => {
    const model = await modelFor([apiError(status, type, message)]);
    expect(classifyModelError(await failure(model.send(testTurn())))).toEqual({
      kind: 'auth',
      message: `the Anthropic API refused the credentials (${status}: ${message})`,
    });
  });

  it('says the API could not be reached when nothing answers, with no stack trace', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise((resolve) => closed.close(resolve));
    const model = new Model({ apiKey: KEY, baseURL: `http://127.0.0.1:${port}`, maxRetries: 0 });
    const failed = classifyModelError(await failure(model.send(testTurn())));
    expect(failed.kind).toBe('other');
    expect(failed.message).toMatch(/^could not reach the Anthropic API after retries \(/);
    expect(failed.message).not.toContain('\n');
  });

  it('passes other errors through as their message', () => {
    expect(classifyModelError(new Error('boom'))).toEqual({ kind: 'other', message: 'boom' });
    expect(classifyModelError('plain')).toEqual({ kind: 'other', message: 'plain' });
  });
});

describe('isMidStreamFailure', () => {
  const streamEvent = (type: string) =>
    new Anthropic.APIError(
      undefined,
      { type: 'error', error: { type, message: type } },
      undefined,
      new Headers(),
    );

  it('retries transient error events and cut streams', () => {
    expect(isMidStreamFailure(streamEvent('overloaded_error'))).toBe(true);
    expect(isMidStreamFailure(streamEvent('api_error'))).toBe(true);
    const cut = Object.assign(new Anthropic.AnthropicError('terminated'), {
      cause: new TypeError('terminated'),
    });
    expect(isMidStreamFailure(cut)).toBe(true);
  });

  it('leaves alone what a retry cannot fix or what the SDK already retried', () => {
    expect(isMidStreamFailure(streamEvent('invalid_request_error'))).toBe(false);
    expect(isMidStreamFailure(new Anthropic.APIUserAbortError())).toBe(false);
    expect(isMidStreamFailure(new Anthropic.APIConnectionError({ message: 'down' }))).toBe(false);
    expect(isMidStreamFailure(new Anthropic.AnthropicError('stream ended without a message'))).toBe(false);
    expect(isMidStreamFailure(new Error('other'))).toBe(false);
  });
});

describe('withCacheBreakpoints', () => {
  const user = (content: MessageParam['content']): MessageParam => ({ role: 'user', content });
  const assistant: MessageParam = { role: 'assistant', content: [{ type: 'text', text: 'ok' }] };
  const marks = (messages: MessageParam[]) => JSON.stringify(messages).split('"cache_control"').length - 1;

  it('marks the last block of the two newest user turns and leaves the history unchanged', () => {
    const history = [user('one'), assistant, user('two'), assistant, user([{ type: 'text', text: 'three' }])];
    const before = structuredClone(history);
    const marked = withCacheBreakpoints(history);
    expect(history).toEqual(before);
    expect(marks(marked)).toBe(2);
    expect(marked[0]).toEqual(user('one'));
    expect(marked[2]).toEqual(user([{ type: 'text', text: 'two', cache_control: { type: 'ephemeral' } }]));
    expect(marked[4]).toEqual(user([{ type: 'text', text: 'three', cache_control: { type: 'ephemeral' } }]));
  });

  it('marks a single user turn once', () => {
    expect(marks(withCacheBreakpoints([user('only')]))).toBe(1);
  });
});

// ---- a hand-written SSE stream, for the server that cuts its first answer short ----

function sse(event: string, data: unknown): string {
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

function startedMessage() {
  return {
    id: 'msg_cut',
    type: 'message',
    role: 'assistant',
    model: 'claude-test',
    content: [],
    stop_reason: null,
    stop_sequence: null,
    usage: { input_tokens: 5, output_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
  };
}

function wholeStream(answer: string): string {
  return [
    sse('message_start', { type: 'message_start', message: startedMessage() }),
    sse('content_block_start', {
      type: 'content_block_start',
      index: 0,
      content_block: { type: 'text', text: '' },
    }),
    sse('content_block_delta', {
      type: 'content_block_delta',
      index: 0,
      delta: { type: 'text_delta', text: answer },
    }),
    sse('content_block_stop', { type: 'content_block_stop', index: 0 }),
    sse('message_delta', {
      type: 'message_delta',
      delta: { stop_reason: 'end_turn', stop_sequence: null },
      usage: { output_tokens: 3 },
    }),
    sse('message_stop', { type: 'message_stop' }),
  ].join('');
}
