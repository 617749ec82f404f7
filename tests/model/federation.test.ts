// Keyless auth's token exchange against the scripted server's token endpoint, over real HTTP with the SDK's
// own exchange: the first token made ahead of the first request, a fresh OIDC token for every exchange, every
// token handed over to be masked, and each refusal told as one sentence that names the fix.
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import {
  federatedCredentials,
  FederationError,
  federationFailure,
  type FederationOptions,
} from '../../src/model/federation.js';
import type { FederationServerOptions } from '../support/anthropic/federation.js';
import { startModelServer, type ScriptedModelServer } from '../support/anthropic/server.js';

const RULE: FederationServerOptions = {
  federationRuleId: 'fdrl_01unitRuleExample',
  organizationId: '00000000-0000-4000-8000-000000000001',
  serviceAccountId: 'svac_01unitAccount',
  issuer: 'https://oidc.example',
  audience: 'https://claude.example',
  subject: /^repo:octo-org\/hello-world:/,
};

/** An OIDC token with these claims (the endpoint reads the claims; it checks no signature). */
const oidcToken = (claims: Record<string, unknown> = {}) =>
  [
    { alg: 'none', typ: 'JWT' },
    {
      iss: RULE.issuer,
      aud: RULE.audience,
      sub: 'repo:octo-org/hello-world:ref:refs/heads/main',
      exp: Math.floor(Date.now() / 1000) + 300,
      jti: randomUUID(),
      ...claims,
    },
  ]
    .map((part) => Buffer.from(JSON.stringify(part)).toString('base64url'))
    .join('.')
    .concat('.sig');

let server: ScriptedModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** A provider on a fresh token endpoint; `asked` holds each audience an OIDC token was asked for. */
async function provider(options: Partial<FederationOptions> = {}) {
  server = await startModelServer([], { federation: RULE });
  const asked: string[] = [];
  const secrets: string[] = [];
  const credentials = federatedCredentials(
    {
      federationRuleId: RULE.federationRuleId,
      organizationId: RULE.organizationId,
      serviceAccountId: RULE.serviceAccountId,
      audience: RULE.audience,
      identityToken: async (audience) => (asked.push(audience), oidcToken()),
      onSecret: (value) => secrets.push(value),
      ...options,
    },
    { baseURL: `${server.url}/`, fetch },
  );
  return { credentials, asked, secrets, tokens: server.tokens! };
}

describe('federatedCredentials', () => {
  it('exchanges ahead of the first request, serves that token once, then exchanges a fresh OIDC token', async () => {
    const { credentials, asked, secrets, tokens } = await provider();
    await credentials.prime();
    expect(tokens.minted).toHaveLength(1);
    const first = await credentials();
    expect(first.token).toBe(tokens.minted[0]);
    expect(tokens.minted).toHaveLength(1);
    const second = await credentials();
    expect(second.token).toBe(tokens.minted[1]);
    expect(asked).toEqual([RULE.audience, RULE.audience]);
    // Every OIDC token and every access token, the moment it existed.
    expect(secrets).toEqual([tokens.assertions[0], tokens.minted[0], tokens.assertions[1], tokens.minted[1]]);
    expect(tokens.exchanges.every((exchange) => exchange.refused === undefined)).toBe(true);
  });

  it("names the audience input when the endpoint refuses the token's audience", async () => {
    const { credentials } = await provider({
      identityToken: async () => oidcToken({ aud: 'https://other.example' }),
    });
    const refused = await credentials.prime().then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(FederationError);
    expect((refused as Error).message).toMatch(
      /^keyless auth: the token endpoint refused the OIDC token's audience 'https:\/\/claude\.example' \(invalid_grant: .+\); set the audience input/,
    );
  });

  it('names the federation rule when the token does not satisfy it', async () => {
    const { credentials } = await provider({
      identityToken: async () => oidcToken({ sub: 'repo:someone/else:ref:x' }),
    });
    await expect(credentials.prime()).rejects.toThrow(
      /^keyless auth: federation rule fdrl_01unitRuleExample refused the job's OIDC token \(invalid_grant: .+\); make the rule/,
    );
  });

  it('names the id-token permission when GitHub will not give the job its OIDC token', async () => {
    const { credentials, tokens } = await provider({
      identityToken: async () => {
        throw new Error('Unable to get ACTIONS_ID_TOKEN_REQUEST_URL\n env variable');
      },
    });
    await expect(credentials.prime()).rejects.toThrow(
      "keyless auth: GitHub refused the job's OIDC token request (Unable to get ACTIONS_ID_TOKEN_REQUEST_URL env variable); give the job `permissions: id-token: write`",
    );
    expect(tokens.exchanges).toEqual([]);
  });
});

describe('federationFailure', () => {
  it('finds a FederationError a few causes down, and nothing in an unrelated error', () => {
    const cause = new FederationError('keyless auth: x');
    expect(federationFailure(new Error('outer', { cause: new Error('middle', { cause }) }))).toBe(cause);
    expect(federationFailure(new Error('plain'))).toBeUndefined();
    expect(federationFailure('not an error')).toBeUndefined();
  });
});
