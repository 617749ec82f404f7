// Effort and the thinking block binding on each provider, through the real platform SDKs to the strict
// stand-ins: Bedrock's own name for the binding field, the beta where each platform reads it, and a field a
// provider refuses as unknown left out (effort) or renamed (the binding) once, with a warning, so an optional
// field never ends a run; a refusal that a changed request cannot get past still does.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Effort } from '../../src/model/catalogue.js';
import { classifyModelError, Model, type TurnRequest } from '../../src/model/client.js';
import { BINDING_BETA } from '../../src/model/provider-fields.js';
import { apiError, reply, text, type ScriptStep } from '../support/anthropic/server.js';
import { testTurn } from '../support/model-turns.js';
import {
  awsEnv,
  BEDROCK_CREDENTIALS,
  startBedrockServer,
  type BedrockBindingField,
} from '../support/providers/bedrock-server.js';
import { startGoogleTokenServer } from '../support/providers/google-token-server.js';
import { stubEnv, usePlatformStandIns } from '../support/providers/per-test.js';
import { startVertexServer } from '../support/providers/vertex-server.js';

const stand = usePlatformStandIns();

const BOUND =
  'messages.1.content.0: Invalid `signature` in `thinking` block. The block is bound to a different conversation. Remove the block, or set `thinking.block_binding.prefix_mismatch_behavior` to "drop_block".';
const turn = testTurn({ system: 's', maxTokens: 64 });

async function bedrockModel(script: ScriptStep[], bindingField?: BedrockBindingField) {
  stand.server = await startBedrockServer(script, BEDROCK_CREDENTIALS, { mode: 'sonnet-5-5', bindingField });
  stubEnv(awsEnv());
  const notices: string[] = [];
  const model = new Model({
    provider: 'bedrock',
    baseURL: stand.server.url,
    maxRetries: 0,
    onNotice: (m) => notices.push(m),
  });
  return { model, notices };
}

async function vertexModel(script: ScriptStep[], refuse: string[], effort?: Effort) {
  const place = { project: 'p', region: 'global' };
  stand.tokens = await startGoogleTokenServer();
  stand.server = await startVertexServer(script, place, stand.tokens, { mode: 'sonnet-5-5', refuse });
  stand.dir = await mkdtemp(join(tmpdir(), 'fields-'));
  stubEnv({
    GOOGLE_APPLICATION_CREDENTIALS: await stand.tokens.credentialsFile(stand.dir),
    CLOUD_ML_REGION: place.region,
    GOOGLE_CLOUD_PROJECT: place.project,
  });
  const notices: string[] = [];
  const model = new Model({
    provider: 'vertex',
    baseURL: stand.server.url,
    maxRetries: 0,
    effort,
    onNotice: (m) => notices.push(m),
  });
  return { model, notices };
}

/** The bodies as they reached the platform's door. */
const sent = () =>
  stand.server!.requests.map((r) => JSON.parse(r.body.toString('utf8')) as Record<string, any>); // eslint-disable-line @typescript-eslint/no-explicit-any

describe('the thinking block binding on Amazon Bedrock', () => {
  it('is sent as mismatch_behavior with the beta in anthropic_beta, and reaches the model as drop_block', async () => {
    const { model, notices } = await bedrockModel([
      apiError(400, 'invalid_request_error', BOUND),
      reply(text('on')),
    ]);
    expect((await model.send(turn)).content).toContainEqual(expect.objectContaining({ text: 'on' }));
    expect(stand.server!.refusals).toEqual([]);
    expect(sent()[1]).toMatchObject({
      thinking: { type: 'adaptive', block_binding: { mismatch_behavior: 'drop_block' } },
      anthropic_beta: [BINDING_BETA],
    });
    expect(stand.server!.model.requests[1]!.body.thinking.block_binding).toEqual({
      prefix_mismatch_behavior: 'drop_block',
    });
    expect(notices).toEqual([expect.stringContaining('Amazon Bedrock refused a thinking block bound')]);
  });

  it('goes under the Anthropic name, once and with a warning, on a Bedrock that refuses its own', async () => {
    const { model, notices } = await bedrockModel(
      [apiError(400, 'invalid_request_error', BOUND), reply(text('on')), reply(text('still on'))],
      'prefix_mismatch_behavior',
    );
    await model.send(turn);
    await model.send(turn);
    expect(stand.server!.refusals.map((r) => r.body)).toEqual([
      { message: 'thinking.adaptive.block_binding.mismatch_behavior: Extra inputs are not permitted' },
    ]);
    expect(sent().map((body) => body.thinking?.block_binding)).toEqual([
      undefined,
      { mismatch_behavior: 'drop_block' },
      { prefix_mismatch_behavior: 'drop_block' },
      { prefix_mismatch_behavior: 'drop_block' },
    ]);
    expect(notices[1]).toBe(
      'Amazon Bedrock does not know thinking.block_binding.mismatch_behavior (thinking.adaptive.block_binding.mismatch_behavior: Extra inputs are not permitted); the rest of this run sends it as prefix_mismatch_behavior.',
    );
  });
});

describe('a field Vertex AI refuses as unknown', () => {
  it('sends the binding beta in the anthropic-beta header, where Vertex reads it', async () => {
    const { model } = await vertexModel(
      [apiError(400, 'invalid_request_error', BOUND), reply(text('on'))],
      [],
    );
    await model.send(turn);
    expect(stand.server!.requests.map((r) => r.headers['anthropic-beta'])).toEqual([undefined, BINDING_BETA]);
    expect(sent()[1]!.thinking.block_binding).toEqual({ prefix_mismatch_behavior: 'drop_block' });
    expect(stand.server!.model.violations).toEqual([]);
  });

  it('leaves effort out for the rest of the run, with a warning', async () => {
    const { model, notices } = await vertexModel(
      [reply(text('a')), reply(text('b'))],
      ['output_config.effort'],
      'low',
    );
    expect((await model.send(turn)).content).toContainEqual(expect.objectContaining({ text: 'a' }));
    await model.send(turn);
    expect(sent().map((body) => body.output_config)).toEqual([{ effort: 'low' }, undefined, undefined]);
    expect(notices).toEqual([
      "Vertex AI does not take output_config.effort for this model (output_config.effort: Extra inputs are not permitted); the rest of this run sends no effort, so the model uses its default instead of 'low'.",
    ]);
  });

  /** A conversation whose thinking block the server did not sign: the real prefix check refuses it. */
  const forged: TurnRequest = {
    ...turn,
    messages: [
      { role: 'user', content: 'Hi' },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: '', signature: 'EpForgedSignature' },
          { type: 'text', text: 'Hello.' },
        ],
      },
      { role: 'user', content: 'Go on.' },
    ],
  };
  const thinkingSent = () =>
    sent().map((body) => JSON.stringify(body.messages).includes('"type":"thinking"'));

  it('sends earlier turns without thinking when the binding is refused under both names', async () => {
    const { model, notices } = await vertexModel(
      [reply(text('on'))],
      ['thinking.block_binding.prefix_mismatch_behavior', 'thinking.block_binding.mismatch_behavior'],
    );
    expect((await model.send(forged)).content).toContainEqual(expect.objectContaining({ text: 'on' }));
    expect(stand.server!.requests).toHaveLength(4);
    expect(stand.server!.model.requests).toHaveLength(2); // the prefix check's 400, then the answer
    expect(thinkingSent()).toEqual([true, true, true, false]);
    expect(sent()[3]).not.toHaveProperty('thinking');
    expect(stand.server!.requests[3]!.headers['anthropic-beta']).toBeUndefined();
    expect(notices.at(-1)).toBe(
      'Vertex AI takes no thinking.block_binding (thinking.adaptive.block_binding.mismatch_behavior: Extra inputs are not permitted); the rest of this run sends earlier turns without their thinking blocks (the model no longer sees its earlier reasoning), so none can be refused.',
    );
  });

  it('sends earlier turns without thinking when block_binding itself is refused', async () => {
    const { model, notices } = await vertexModel(
      [reply(text('on')), reply(text('again'))],
      ['thinking.block_binding'],
    );
    await model.send(forged);
    await model.send(forged);
    expect(thinkingSent()).toEqual([true, true, false, false]);
    expect(stand.server!.model.violations).toHaveLength(1); // only the prefix check's own 400
    expect(notices).toHaveLength(2);
  });

  it('still fails when the provider refuses the binding and a later request for another reason', async () => {
    const { model } = await vertexModel(
      [apiError(400, 'invalid_request_error', 'messages: too many'), reply(text('never'))],
      ['thinking.block_binding'],
    );
    const error = await model.send(forged).then(
      () => expect.fail('expected a failure'),
      (e: unknown) => e,
    );
    expect(classifyModelError(error, model.service).message).toBe(
      'Vertex AI answered 400: messages: too many',
    );
    expect(stand.server!.requests).toHaveLength(3);
  });
});
