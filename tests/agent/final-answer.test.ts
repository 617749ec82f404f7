// The run's final answer against the scripted model server: asked in text under the structured-output format
// from a model that takes it, through the final_answer tool from one that does not; one correction, then an
// error naming the mismatch; the model's summary of the work kept either way.
import { describe, expect, it } from 'vitest';
import { FINAL_ANSWER_TOOL, finalAnswer } from '../../src/agent/final-answer.js';
import { Transcript } from '../../src/agent/turn.js';
import type { Model } from '../../src/model/client.js';
import type { ToolDefinition } from '../../src/model/messages.js';
import { parseOutputSchema } from '../../src/model/output-schema.js';
import { apiError, reply, text, toolUse } from '../support/anthropic/server.js';
import { useModelPerTest } from '../support/anthropic/per-test.js';

const modelFor = useModelPerTest();
const schema = parseOutputSchema(
  '{"type":"object","properties":{"ok":{"type":"boolean"}},"required":["ok"],"additionalProperties":false}',
);
const BASH: ToolDefinition = {
  name: 'bash',
  description: 'Runs a command.',
  input_schema: { type: 'object', properties: { command: { type: 'string' } } },
};

/** A run whose work is over: the task, and the model's summary of it. */
function workDone(): Transcript {
  const transcript = new Transcript('Tidy up hello.py');
  transcript.messages.push({ role: 'assistant', content: [{ type: 'text', text: 'Tidied hello.py.' }] });
  transcript.lastText = 'Tidied hello.py.';
  return transcript;
}

const ask = (model: Model, transcript = workDone()) =>
  finalAnswer({ model, system: 'You are a test.', tools: [BASH], transcript, maxTokens: 1024 }, schema);

describe('finalAnswer', () => {
  it('asks a model with structured outputs for JSON in text, its tools set aside, and keeps the summary', async () => {
    const { model, server } = await modelFor([reply(text('{"ok": true}'))]);
    const transcript = workDone();
    expect(await ask(model, transcript)).toEqual({ value: { ok: true } });
    const [request] = server.requests;
    expect(request!.body.tool_choice).toEqual({ type: 'none' });
    expect(request!.body.output_config.format.schema).toMatchObject({ required: ['ok'] });
    expect(request!.body.tools.map((tool: { name: string }) => tool.name)).toEqual(['bash']);
    expect(transcript.lastText).toBe('Tidied hello.py.');
    expect(server.violations).toEqual([]);
  });

  it('gives a model without structured outputs the final_answer tool', async () => {
    const { model, server } = await modelFor(
      [reply(toolUse(FINAL_ANSWER_TOOL, { answer: { ok: false } }))],
      'claude-sonnet-4',
    );
    expect(await ask(model)).toEqual({ value: { ok: false } });
    const body = server.requests[0]!.body;
    expect(body.tools.map((tool: { name: string }) => tool.name)).toEqual(['bash', FINAL_ANSWER_TOOL]);
    expect(body.output_config?.format).toBeUndefined();
    expect(server.violations).toEqual([]);
  });

  it('tells a mismatch back once, answering the call it made, and takes the corrected answer', async () => {
    const { model, server } = await modelFor(
      [
        reply(toolUse(FINAL_ANSWER_TOOL, { answer: { ok: 'yes' } })),
        reply(toolUse(FINAL_ANSWER_TOOL, { answer: { ok: true } })),
      ],
      'claude-sonnet-4',
    );
    expect(await ask(model)).toEqual({ value: { ok: true } });
    const told = server.requests[1]!.body.messages.at(-1).content;
    expect(told[0]).toMatchObject({ type: 'tool_result', is_error: true });
    expect(told.at(-1).text).toMatch(
      /^That answer does not match the output schema: .+\. Answer again, matching it\.$/,
    );
    expect(server.violations).toEqual([]);
  });

  it('gives up after one correction with an error that names the mismatch', async () => {
    const { model } = await modelFor([reply(text('not json')), reply(text('{"ok": 1}'))]);
    const answer = await ask(model);
    expect(answer).toEqual({
      error: expect.stringMatching(/^the final answer does not match output_schema after one correction: /),
    });
  });

  it('turns a failed request into an error, not a throw', async () => {
    const { model } = await modelFor([apiError(400, 'invalid_request_error', 'bad request')]);
    expect(await ask(model)).toEqual({
      error: expect.stringMatching(/^the final answer could not be had: /),
    });
  });
});
