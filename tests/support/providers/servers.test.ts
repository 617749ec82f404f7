// The Bedrock and Vertex stand-ins refuse what the platforms refuse: a request replayed with its body, path
// or session token changed fails the SigV4 check, and so does one signed with other keys; a Vertex call
// needs a token the local token service issued; neither takes `model` in the body or a body without
// `anthropic_version`. Bedrock's `thinking.block_binding` takes its own field name, and refuses the Messages
// API's; Vertex reads betas from the header and refuses those it does not offer.
import { AnthropicBedrock } from '@anthropic-ai/bedrock-sdk';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Model } from '../../../src/model/client.js';
import { BINDING_BETA, reply, text } from '../anthropic/server.js';
import { awsEnv, startBedrockServer } from './bedrock-server.js';
import { startGoogleTokenServer, WIF_AUDIENCE, type GoogleTokenServer } from './google-token-server.js';
import type { PlatformRequest, PlatformServer } from './gateway.js';
import { startVertexServer } from './vertex-server.js';

let server: PlatformServer | undefined;
let tokens: GoogleTokenServer | undefined;
afterEach(async () => {
  await server?.close();
  await tokens?.close();
  server = tokens = undefined;
  vi.unstubAllEnvs();
});

const turn = { system: 's', tools: [], messages: [{ role: 'user' as const, content: 'Hi' }], maxTokens: 64 };

/** Sends `request` again, as recorded or changed, and returns the status and body. */
async function replay(base: string, request: PlatformRequest, change: Partial<PlatformRequest> = {}) {
  const { url, headers, body } = { ...request, ...change };
  const sent = Object.fromEntries(
    Object.entries(headers).filter(
      ([name, value]) =>
        typeof value === 'string' && !['content-length', 'host', 'connection'].includes(name),
    ),
  ) as Record<string, string>;
  const response = await fetch(`${base}${url}`, { method: 'POST', headers: sent, body });
  return { status: response.status, body: await response.text() };
}

const origin = (url: string) => new URL(url).origin;

describe('the Bedrock stand-in', () => {
  async function signedRequest(): Promise<PlatformRequest> {
    server = await startBedrockServer([reply(text('first')), reply(text('replayed'))]);
    for (const [name, value] of Object.entries(awsEnv())) vi.stubEnv(name, value);
    await new Model({ provider: 'bedrock', baseURL: server.url, maxRetries: 0 }).send(turn);
    return server.requests[0]!;
  }

  it('accepts the signed request as sent, and refuses it with the body, path or session token changed', async () => {
    const request = await signedRequest();
    const base = origin(server!.url);
    expect((await replay(base, request)).status).toBe(200);

    const body = Buffer.from(request.body.toString('utf8').replace('"Hi"', '"Ho"'));
    const tampered = await replay(base, request, { body });
    expect(tampered.status).toBe(403);
    expect(tampered.body).toContain('x-amz-content-sha256 does not match the body');

    const { 'x-amz-content-sha256': _hash, ...unhashed } = request.headers;
    expect((await replay(base, request, { headers: unhashed, body })).body).toContain(
      'The request signature we calculated does not match',
    );
    const otherModel = request.url.replace('claude-sonnet-5-5', 'claude-opus-5-5');
    expect((await replay(base, request, { url: otherModel })).body).toContain(
      'signature we calculated does not match',
    );
    const { 'x-amz-security-token': _token, ...tokenless } = request.headers;
    expect((await replay(base, request, { headers: tokenless })).body).toContain(
      'x-amz-security-token is missing',
    );
    const { authorization: _auth, ...unsigned } = request.headers;
    expect((await replay(base, request, { headers: unsigned })).status).toBe(403);
    expect(server!.model.requests).toHaveLength(2); // only the two untouched requests got through
  });
});

describe('the Bedrock stand-in on the thinking block binding', () => {
  const bound = (field: string) => ({
    model: 'global.anthropic.claude-sonnet-5-5',
    max_tokens: 16,
    messages: [{ role: 'user' as const, content: 'Hi' }],
    thinking: { type: 'adaptive', block_binding: { [field]: 'drop_block' } },
  });

  it("refuses the Messages API's field name as Bedrock does, and hands Bedrock's on with the body's beta", async () => {
    server = await startBedrockServer([reply(text('ok'))]);
    for (const [name, value] of Object.entries(awsEnv())) vi.stubEnv(name, value);
    const client = new AnthropicBedrock({ baseURL: server.url, maxRetries: 0, awsRegion: 'us-west-2' });
    const beta = { headers: { 'anthropic-beta': BINDING_BETA } };
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the SDK's types know only one name
    const create = (body: any) => client.messages.create(body, beta);

    await expect(create(bound('prefix_mismatch_behavior'))).rejects.toThrow(
      'thinking.adaptive.block_binding.prefix_mismatch_behavior: Extra inputs are not permitted',
    );
    expect(server.refusals[0]!.status).toBe(400);
    await create(bound('mismatch_behavior'));
    const [handed] = server.model.requests;
    expect(handed!.body.thinking.block_binding).toEqual({ prefix_mismatch_behavior: 'drop_block' });
    expect(handed!.headers['anthropic-beta']).toBe(BINDING_BETA);
    expect(server.model.violations).toEqual([]);
  });
});

describe('the Vertex stand-in', () => {
  it('needs an issued token, and the version but not the model in the body', async () => {
    tokens = await startGoogleTokenServer();
    server = await startVertexServer(
      [reply(text('ok')), reply(text('ok')), reply(text('ok'))],
      { project: 'p', region: 'global' },
      tokens,
    );
    const path =
      '/projects/p/locations/global/publishers/anthropic/models/claude-sonnet-5-5:streamRawPredict';
    const body = (fields: object) =>
      JSON.stringify({
        max_tokens: 16,
        messages: [{ role: 'user', content: 'Hi' }],
        stream: true,
        ...fields,
      });
    const post = (headers: Record<string, string>, payload: string) =>
      fetch(`${server!.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: payload,
      });

    expect((await post({}, body({ anthropic_version: 'vertex-2023-10-16' }))).status).toBe(401);
    expect(
      (await post({ authorization: 'Bearer ya29.made-up' }, body({ anthropic_version: 'v' }))).status,
    ).toBe(401);

    // A token from the real exchange: the OIDC endpoint, then the token service.
    const oidc = await fetch(`${tokens.url}/oidc?audience=${encodeURIComponent(`https:${WIF_AUDIENCE}`)}`, {
      headers: { authorization: `Bearer ${tokens.requestToken}` },
    });
    const { value } = (await oidc.json()) as { value: string };
    const exchanged = await fetch(`${tokens.url}/v1/token`, {
      method: 'POST',
      body: new URLSearchParams({
        grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange',
        subject_token_type: 'urn:ietf:params:oauth:token-type:jwt',
        audience: WIF_AUDIENCE,
        subject_token: value,
      }),
    });
    const { access_token: token } = (await exchanged.json()) as { access_token: string };
    const auth = { authorization: `Bearer ${token}` };

    const noVersion = await post(auth, body({}));
    expect(noVersion.status).toBe(400);
    expect(await noVersion.text()).toContain('anthropic_version is required');
    const withModel = await post(
      auth,
      body({ anthropic_version: 'vertex-2023-10-16', model: 'claude-sonnet-5-5' }),
    );
    expect(withModel.status).toBe(400);
    expect(await withModel.text()).toContain('model is not allowed in the body');
    const good = await post(auth, body({ anthropic_version: 'vertex-2023-10-16' }));
    expect(good.status).toBe(200);
    expect(await good.text()).toContain('event: message_stop');
    expect(server.model.requests).toHaveLength(1);

    // A beta Vertex does not offer, in the header or the body, is refused; one it offers is handed on.
    const version = { anthropic_version: 'vertex-2023-10-16' };
    const unknown = await post(
      { ...auth, 'anthropic-beta': `${BINDING_BETA},effort-2025-11-24` },
      body(version),
    );
    expect(unknown.status).toBe(400);
    expect(await unknown.text()).toContain(
      'Unexpected value(s) `effort-2025-11-24` for the `anthropic-beta` header.',
    );
    expect((await post(auth, body({ ...version, anthropic_beta: ['files-api-2025-04-14'] }))).status).toBe(
      400,
    );
    expect((await post({ ...auth, 'anthropic-beta': BINDING_BETA }, body(version))).status).toBe(200);
    expect(server.model.requests.at(-1)!.headers['anthropic-beta']).toBe(BINDING_BETA);
  });
});
