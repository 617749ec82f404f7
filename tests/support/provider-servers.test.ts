// The Bedrock and Vertex stand-ins refuse what the platforms refuse: a request replayed with its body, path
// or session token changed fails the SigV4 check, and so does one signed with other keys; a Vertex call
// needs a token the local token service issued; neither takes `model` in the body or a body without
// `anthropic_version`.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Model } from '../../src/agent/model.js';
import { reply, text } from './anthropic-server.js';
import { awsEnv, startBedrockServer } from './bedrock-server.js';
import { startGoogleTokenServer, WIF_AUDIENCE, type GoogleTokenServer } from './google-token-server.js';
import type { PlatformRequest, PlatformServer } from './provider-gateway.js';
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

describe('the Vertex stand-in', () => {
  it('needs an issued token, and the version but not the model in the body', async () => {
    tokens = await startGoogleTokenServer();
    server = await startVertexServer(
      [reply(text('ok')), reply(text('ok'))],
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
  });
});
