// The model client on each platform, through the real platform SDKs over real HTTP to local stand-ins that
// check the platform's own request shape: a SigV4-signed Bedrock call, a Vertex call with a token from a
// keyless (workload identity federation) exchange.
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { classifyModelError, Model } from '../../src/model/client.js';
import { credentialFileSecrets } from '../../src/sandbox/credential-files.js';
import { platformModelId, providerProblem } from '../../src/model/providers.js';
import { childEnv } from '../../src/sandbox/commands/child-env.js';
import { secretValues } from '../../src/settings/settings.js';
import { reply, text, type ScriptStep } from '../support/anthropic/server.js';
import { failure, testTurn } from '../support/model-turns.js';
import { awsEnv, BEDROCK_CREDENTIALS, startBedrockServer } from '../support/providers/bedrock-server.js';
import { startGoogleTokenServer } from '../support/providers/google-token-server.js';
import { stubEnv, usePlatformStandIns } from '../support/providers/per-test.js';
import { startVertexServer } from '../support/providers/vertex-server.js';

const stand = usePlatformStandIns();

/** Sends a turn that the stand-in answers with `greeting`: the answer as sent, nothing refused; what arrived. */
async function answered(model: Model, greeting: string) {
  const message = await model.send(testTurn());
  expect(message.content).toEqual([expect.objectContaining({ type: 'text', text: greeting })]);
  expect(stand.server!.refusals).toEqual([]);
  const request = stand.server!.requests[0]!;
  return { request, body: JSON.parse(request.body.toString('utf8')) as Record<string, unknown> };
}

/** Sends a turn the platform refuses: an auth failure worded `message`, and nothing got past its door. */
async function expectRefused(model: Model, message: string) {
  const failed = classifyModelError(await failure(model.send(testTurn())), model.service);
  expect(failed).toEqual({ kind: 'auth', message });
  expect(stand.server!.model.requests).toEqual([]);
}

describe('provider bedrock', () => {
  async function bedrockModel(script: ScriptStep[], model?: string, secret?: string): Promise<Model> {
    stand.server = await startBedrockServer(script);
    stubEnv(
      awsEnv({ ...BEDROCK_CREDENTIALS, secretAccessKey: secret ?? BEDROCK_CREDENTIALS.secretAccessKey }),
    );
    vi.stubEnv('ANTHROPIC_API_KEY', 'sk-ant-must-never-reach-bedrock-0000000');
    return new Model({
      provider: 'bedrock',
      baseURL: stand.server.url,
      maxRetries: 0,
      ...(model ? { model } : {}),
    });
  }

  it('sends a SigV4-signed InvokeModelWithResponseStream for the default model and reads the event stream', async () => {
    const { request, body } = await answered(
      await bedrockModel([reply(text('Hello from Bedrock'))]),
      'Hello from Bedrock',
    );
    expect(request.url).toBe('/model/global.anthropic.claude-sonnet-5-5/invoke-with-response-stream');
    expect(request.headers.authorization).toMatch(
      /^AWS4-HMAC-SHA256 Credential=ASIAQTESTTESTTESTTEST\/\d{8}\/us-west-2\/bedrock\/aws4_request, SignedHeaders=[a-z0-9;-]*x-amz-security-token[a-z0-9;-]*, Signature=[0-9a-f]{64}$/,
    );
    expect(request.headers['x-amz-date']).toMatch(/^\d{8}T\d{6}Z$/);
    expect(request.headers['x-amz-security-token']).toBe(BEDROCK_CREDENTIALS.sessionToken);
    expect(request.headers['x-api-key']).toBeUndefined();
    expect(body.anthropic_version).toEqual(expect.any(String));
    expect(body).not.toHaveProperty('model');
    expect(body).not.toHaveProperty('stream');
    // Behind the door, the same Messages request as a direct call, with every API rule met.
    expect(stand.server!.model.violations).toEqual([]);
    expect(stand.server!.model.requests[0]!.body.model).toBe('global.anthropic.claude-sonnet-5-5');
  });

  it('sends another model id as given', async () => {
    const model = await bedrockModel([reply(text('ok'))], 'us.anthropic.claude-opus-5-5');
    await model.send(testTurn());
    expect(stand.server!.requests[0]!.url).toBe(
      '/model/us.anthropic.claude-opus-5-5/invoke-with-response-stream',
    );
  });

  it('is refused, as an auth failure, when the signature does not match the credentials', async () => {
    const model = await bedrockModel(
      [reply(text('never'))],
      undefined,
      'aWrongSecretKey000000000000000000000000000',
    );
    await expectRefused(
      model,
      'Amazon Bedrock refused the credentials (403: The request signature we calculated does not match the signature you provided)',
    );
  });

  it('reads the exception that ends a Bedrock stream as a mid-stream failure', async () => {
    const model = await bedrockModel([
      { ...reply(text('partial')), streamError: { type: 'overloaded_error', message: 'Overloaded' } },
    ]);
    const failed = classifyModelError(await failure(model.send(testTurn())), model.service);
    expect(failed).toEqual({
      kind: 'other',
      message: 'Amazon Bedrock stream failed (serviceUnavailableException: Overloaded)',
    });
  });

  it('sends the request again when the event stream ends with that exception', async () => {
    stand.server = await startBedrockServer([
      { ...reply(text('partial')), streamError: { type: 'overloaded_error', message: 'Overloaded' } },
      reply(text('second try')),
    ]);
    stubEnv(awsEnv());
    const model = new Model({ provider: 'bedrock', baseURL: stand.server.url, maxRetries: 1 });
    const message = await model.send(testTurn());
    expect(message.content).toEqual([expect.objectContaining({ text: 'second try' })]);
    expect(stand.server.requests).toHaveLength(2);
  });
});

describe('provider vertex', () => {
  const place = { project: 'todo-agent-test', region: 'us-east5' };

  async function vertexModel(script: ScriptStep[], project = place.project): Promise<Model> {
    stand.tokens = await startGoogleTokenServer();
    stand.server = await startVertexServer(script, place, stand.tokens);
    stand.dir = await mkdtemp(join(tmpdir(), 'vertex-test-'));
    stubEnv({
      GOOGLE_APPLICATION_CREDENTIALS: await stand.tokens.credentialsFile(stand.dir),
      CLOUD_ML_REGION: place.region,
      GOOGLE_CLOUD_PROJECT: project,
      ANTHROPIC_API_KEY: 'sk-ant-must-never-reach-vertex-00000000',
    });
    return new Model({ provider: 'vertex', baseURL: stand.server.url, maxRetries: 0 });
  }

  it('calls streamRawPredict with a token from the keyless exchange', async () => {
    const { request, body } = await answered(
      await vertexModel([reply(text('Hello from Vertex'))]),
      'Hello from Vertex',
    );
    expect(request.url).toBe(
      '/v1/projects/todo-agent-test/locations/us-east5/publishers/anthropic/models/claude-sonnet-5-5:streamRawPredict',
    );
    expect(stand.tokens!.exchanges).toHaveLength(1);
    expect(request.headers.authorization).toBe(`Bearer ${stand.tokens!.accessTokens[0]}`);
    expect(request.headers['x-api-key']).toBeUndefined();
    expect(body.anthropic_version).toEqual(expect.any(String));
    expect(body).not.toHaveProperty('model');
    expect(stand.server!.model.violations).toEqual([]);
    expect(stand.server!.model.requests[0]!.body.model).toBe('claude-sonnet-5-5');
  });

  it('is refused, as an auth failure, on a project the credentials may not use', async () => {
    const model = await vertexModel([reply(text('never'))], 'someone-elses-project');
    await expectRefused(
      model,
      'Vertex AI refused the credentials (403: Permission denied on projects/someone-elses-project/locations/us-east5)',
    );
  });
});

describe('what each provider needs and hides', () => {
  it('maps the default model to each platform id and sends any other id as given', () => {
    expect(platformModelId('anthropic', 'claude-sonnet-5-5')).toBe('claude-sonnet-5-5');
    expect(platformModelId('bedrock', 'claude-sonnet-5-5')).toBe('global.anthropic.claude-sonnet-5-5');
    expect(platformModelId('vertex', 'claude-sonnet-5-5')).toBe('claude-sonnet-5-5');
    expect(platformModelId('bedrock', 'eu.anthropic.claude-opus-5-5')).toBe('eu.anthropic.claude-opus-5-5');
    expect(platformModelId('vertex', 'claude-haiku-4-5@20251001')).toBe('claude-haiku-4-5@20251001');
  });

  it('says in one sentence what a platform lacks, before any call', () => {
    expect(providerProblem('bedrock', {})).toMatch(/^provider bedrock needs AWS_REGION/);
    expect(providerProblem('bedrock', { AWS_REGION: 'eu-west-1' })).toBeUndefined();
    expect(providerProblem('vertex', { GOOGLE_CLOUD_PROJECT: 'p' })).toMatch(
      /^provider vertex needs CLOUD_ML_REGION/,
    );
    expect(providerProblem('vertex', { CLOUD_ML_REGION: 'global' })).toMatch(/needs a project id/);
    expect(providerProblem('vertex', { CLOUD_ML_REGION: 'global', GCLOUD_PROJECT: 'p' })).toBeUndefined();
    expect(() => new Model({ provider: 'vertex', maxRetries: 0 })).toThrow(/provider vertex needs/);
  });

  it('masks the AWS keys and the secrets of the Google credentials file, and keeps them from tools', async () => {
    stand.tokens = await startGoogleTokenServer();
    stand.dir = await mkdtemp(join(tmpdir(), 'vertex-secrets-'));
    const file = await stand.tokens.credentialsFile(stand.dir);
    const env = {
      ...awsEnv(),
      GOOGLE_APPLICATION_CREDENTIALS: file,
      CLOUD_ML_REGION: 'us-east5',
      PATH: '/bin',
    };

    expect(credentialFileSecrets(env)).toEqual([stand.tokens.requestToken]);
    // The file may be named only by the auth action's other variables: its secrets are found all the same.
    expect(credentialFileSecrets({ CLOUDSDK_AUTH_CREDENTIAL_FILE_OVERRIDE: file })).toEqual([
      stand.tokens.requestToken,
    ]);
    expect(credentialFileSecrets({ GOOGLE_GHA_CREDS_PATH: file })).toEqual([stand.tokens.requestToken]);
    const secrets = secretValues(env);
    for (const value of [
      BEDROCK_CREDENTIALS.accessKeyId,
      BEDROCK_CREDENTIALS.secretAccessKey,
      BEDROCK_CREDENTIALS.sessionToken!,
      stand.tokens.requestToken,
    ])
      expect(secrets).toContain(value);
    expect(secrets).not.toContain('us-east5');
    expect(Object.keys(childEnv(env, secrets)).sort()).toEqual(
      [
        'AWS_DEFAULT_REGION',
        'AWS_REGION',
        'CLOUD_ML_REGION',
        'GIT_PAGER',
        'GIT_TERMINAL_PROMPT',
        'PAGER',
        'PATH',
      ].sort(),
    );
  });

  it('finds no secrets in a credentials file that is missing or not JSON', async () => {
    stand.dir = await mkdtemp(join(tmpdir(), 'vertex-secrets-'));
    await writeFile(join(stand.dir, 'bad.json'), 'not json');
    expect(credentialFileSecrets({ GOOGLE_APPLICATION_CREDENTIALS: join(stand.dir, 'bad.json') })).toEqual(
      [],
    );
    expect(
      credentialFileSecrets({ GOOGLE_APPLICATION_CREDENTIALS: join(stand.dir, 'missing.json') }),
    ).toEqual([]);
  });
});

describe('a platform with no credentials in reach', () => {
  it('says so as an auth failure, naming the platform', async () => {
    for (const name of ['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'AWS_SESSION_TOKEN', 'AWS_PROFILE'])
      vi.stubEnv(name, '');
    stand.dir = await mkdtemp(join(tmpdir(), 'no-creds-'));
    // No credentials file, profile or instance role: every source of the AWS chain comes up empty.
    stubEnv({
      AWS_REGION: 'us-west-2',
      AWS_SHARED_CREDENTIALS_FILE: join(stand.dir, 'none'),
      AWS_CONFIG_FILE: join(stand.dir, 'none'),
      AWS_EC2_METADATA_DISABLED: 'true',
    });
    const model = new Model({ provider: 'bedrock', baseURL: 'http://127.0.0.1:9', maxRetries: 0 });
    const failed = classifyModelError(await failure(model.send(testTurn())), model.service);
    expect(failed.kind).toBe('auth');
    expect(failed.message).toMatch(
      /^no credentials for Amazon Bedrock \(Failed to resolve AWS credentials from the credential provider chain: /,
    );
  });
});
