// The bundled action on Amazon Bedrock and on Vertex AI, with the credentials a workflow gets from
// aws-actions/configure-aws-credentials and google-github-actions/auth, against local stand-ins that check
// each platform's request shape (tests/support/providers/gateway.ts): the same loop completes and opens the
// pull request, and no credential reaches a tool, the model, a comment, the log or the pushed branch.
import { afterEach, describe, expect, it } from 'vitest';
import { apiError, BINDING_BETA, reply, toolUse, type ScriptStep } from '../support/anthropic/server.js';
import { awsEnv, BEDROCK_CREDENTIALS, startBedrockServer } from '../support/providers/bedrock-server.js';
import { startGoogleTokenServer, type GoogleTokenServer } from '../support/providers/google-token-server.js';
import type { PlatformRequest, PlatformServer } from '../support/providers/gateway.js';
import { HELLO_RESULT, HELLO_TASK, helloScript } from '../support/anthropic/scenarios.js';
import { startVertexServer, type VertexServerOptions } from '../support/providers/vertex-server.js';
import { createWorld, originGit, placesShown, type World } from './setup.js';

const BOUND =
  'messages.1.content.0: Invalid `signature` in `thinking` block. The block is bound to a different conversation. Remove the block, or set `thinking.block_binding.prefix_mismatch_behavior` to "drop_block".';

let world: World | undefined;
let platform: PlatformServer | undefined;
let tokens: GoogleTokenServer | undefined;
afterEach(async () => {
  await Promise.all([world?.close(), platform?.close(), tokens?.close()]);
  world = platform = tokens = undefined;
});

/** The sample task, with one more command: everything the tools' environment and workspace hold. */
function snoopingScript(): ScriptStep[] {
  const script = helloScript();
  script.splice(
    -2,
    0,
    reply(toolUse('bash', { command: 'env | sort; cat gha-creds-*.json 2>/dev/null; true' })),
  );
  return script;
}

const toolResults = (body: { messages: Array<{ content: unknown }> }): string =>
  JSON.stringify(body.messages.at(-1)?.content ?? '');

async function expectCompletedAndClean(run: Awaited<ReturnType<World['trigger']>>, secrets: string[]) {
  expect(run.stderr).toBe('');
  expect(run.outputs.status).toBe('completed');
  expect(run.code).toBe(0);
  expect(platform!.refusals).toEqual([]);
  expect(platform!.model.violations).toEqual([]);
  expect(platform!.model.remaining()).toBe(0);
  const pr = world!.github.state.pulls[0]!;
  expect(pr.body.startsWith('Closes #1')).toBe(true);
  const branch = run.outputs.branch!;
  const git = (...args: string[]) => originGit(world!, ...args);
  expect(await git('show', `${branch}:hello.py`)).toBe(HELLO_RESULT.trimEnd());
  // The credentials file the auth step leaves in the workspace is never committed.
  expect(await git('ls-tree', '-r', '--name-only', branch)).not.toMatch(/gha-creds/);

  const bodies = platform!.model.requests.map((request) => JSON.stringify(request.body));
  const envDump = toolResults(platform!.model.requests.at(-2)!.body);
  expect(envDump).toContain('PATH=');
  const places = {
    'requests to the model': bodies.join('\n'),
    ...placesShown(world!, run, pr),
    'pushed files': await git('grep', '-h', '-I', '', branch).catch(() => ''),
  };
  for (const [where, text] of Object.entries(places))
    for (const secret of secrets) expect(text.includes(secret), `a credential in ${where}`).toBe(false);
  return envDump;
}

/** The action on Vertex AI in project todo-agent-e2e and `region`, as after google-github-actions/auth. */
async function runOnVertex(script: ScriptStep[], region: string, options?: VertexServerOptions) {
  tokens = await startGoogleTokenServer();
  const place = { project: 'todo-agent-e2e', region };
  platform = await startVertexServer(script, place, tokens, options);
  world = await createWorld([]);
  // The auth step writes its credentials file into the workspace and exports where it is.
  const credentials = await tokens.credentialsFile(world.sandbox.workspace);
  return world.trigger(`/agent ${HELLO_TASK}`, {
    inputs: { provider: 'vertex', anthropic_api_key: '', anthropic_base_url: platform.url },
    env: {
      GOOGLE_APPLICATION_CREDENTIALS: credentials,
      CLOUDSDK_AUTH_CREDENTIAL_FILE_OVERRIDE: credentials,
      GOOGLE_CLOUD_PROJECT: place.project,
      CLOUD_ML_REGION: place.region,
    },
  });
}

describe('the bundled action on another platform', () => {
  it('runs on Amazon Bedrock with the short-lived keys of configure-aws-credentials', async () => {
    platform = await startBedrockServer(snoopingScript());
    world = await createWorld([]);
    const run = await world.trigger(`/agent ${HELLO_TASK}`, {
      inputs: { provider: 'bedrock', anthropic_api_key: '', anthropic_base_url: platform.url },
      env: awsEnv(),
    });
    const envDump = await expectCompletedAndClean(run, [
      BEDROCK_CREDENTIALS.accessKeyId,
      BEDROCK_CREDENTIALS.secretAccessKey,
      BEDROCK_CREDENTIALS.sessionToken!,
    ]);
    expect(envDump).toContain('AWS_REGION=us-west-2');
    expect(envDump).not.toMatch(/AWS_(ACCESS_KEY_ID|SECRET_ACCESS_KEY|SESSION_TOKEN)/);
    // Every turn was a signed streaming call for the platform's id of the default model.
    expect(platform.requests.length).toBe(platform.model.requests.length);
    for (const request of platform.requests) {
      expect(request.url).toBe('/model/global.anthropic.claude-sonnet-5-5/invoke-with-response-stream');
      expect(request.headers.authorization).toMatch(/\/us-west-2\/bedrock\/aws4_request, /);
    }
    expect(Number(run.outputs.cost_usd)).toBeGreaterThan(0);
  });

  it('runs on Vertex AI with the keyless credentials file of google-github-actions/auth', async () => {
    const run = await runOnVertex(snoopingScript(), 'us-east5');
    const envDump = await expectCompletedAndClean(run, [tokens!.requestToken, ...tokens!.accessTokens]);
    expect(envDump).toContain('CLOUD_ML_REGION=us-east5');
    expect(envDump).not.toContain('GOOGLE_APPLICATION_CREDENTIALS');
    expect(tokens!.accessTokens.length).toBeGreaterThan(0);
    for (const request of platform!.requests)
      expect(request.url).toBe(
        '/v1/projects/todo-agent-e2e/locations/us-east5/publishers/anthropic/models/claude-sonnet-5-5:streamRawPredict',
      );
  });

  /** The sample task on Sonnet 5.5, with the 400 a changed prefix gets on the third turn. */
  function boundOnce(): ScriptStep[] {
    const script = helloScript();
    script.splice(2, 0, apiError(400, 'invalid_request_error', BOUND));
    return script;
  }

  /**
   * The run completed, and from the refused request on (the fourth) every request asked to drop such blocks
   * with `binding`, its beta (read by `betaOf`) being `beta`; none before.
   */
  function expectDroppingAfterRefusal(
    run: Awaited<ReturnType<World['trigger']>>,
    binding: object,
    betaOf: (request: PlatformRequest, body: { anthropic_beta?: unknown }) => unknown,
    beta: unknown,
  ): void {
    expect(run.outputs.status).toBe('completed');
    expect(platform!.refusals).toEqual([]);
    expect(platform!.model.violations).toEqual([]);
    const sent = platform!.requests.map((request) => ({
      request,
      body: JSON.parse(request.body.toString('utf8')) as {
        thinking?: { block_binding?: unknown };
        anthropic_beta?: unknown;
      },
    }));
    const fromRefusal = (value: unknown) => sent.map((_, i) => (i >= 3 ? value : undefined));
    expect(sent.map(({ body }) => body.thinking?.block_binding)).toEqual(fromRefusal(binding));
    expect(sent.map(({ request, body }) => betaOf(request, body))).toEqual(fromRefusal(beta));
  }

  it('recovers on Bedrock from a thinking block bound elsewhere, in the fields Bedrock takes', async () => {
    platform = await startBedrockServer(boundOnce(), BEDROCK_CREDENTIALS, { mode: 'sonnet-5-5' });
    world = await createWorld([]);
    const run = await world.trigger(`/agent ${HELLO_TASK}`, {
      inputs: { provider: 'bedrock', anthropic_api_key: '', anthropic_base_url: platform.url },
      env: awsEnv(),
    });
    expectDroppingAfterRefusal(run, { mismatch_behavior: 'drop_block' }, (_, body) => body.anthropic_beta, [
      BINDING_BETA,
    ]);
    expect(run.stdout).toMatch(/::warning::.*drop_block/);
  });

  it('recovers on Vertex AI from a thinking block bound elsewhere, the beta in its header', async () => {
    const run = await runOnVertex(boundOnce(), 'global', { mode: 'sonnet-5-5' });
    expectDroppingAfterRefusal(
      run,
      { prefix_mismatch_behavior: 'drop_block' },
      (request) => request.headers['anthropic-beta'],
      BINDING_BETA,
    );
  });

  it('fails readably, with no secret in the log, when Bedrock refuses the signature', async () => {
    platform = await startBedrockServer(snoopingScript());
    world = await createWorld([]);
    const wrong = { ...BEDROCK_CREDENTIALS, secretAccessKey: 'notTheKeyBedrockKnows000000000000000000000' };
    const run = await world.trigger(`/agent ${HELLO_TASK}`, {
      inputs: { provider: 'bedrock', anthropic_api_key: '', anthropic_base_url: platform.url },
      env: awsEnv(wrong),
    });
    expect(run.outputs.status).toBe('failed');
    expect(platform.refusals).toHaveLength(1); // a refused signature is not retried
    expect(platform.model.requests).toEqual([]);
    const log = run.stdout
      .split('\n')
      .filter((line) => !line.startsWith('::add-mask::'))
      .join('\n');
    expect(log).toContain(
      '::error::todo-agent failed: Amazon Bedrock refused the credentials (403: The request signature we calculated does not match the signature you provided)',
    );
    expect(log).not.toContain(wrong.secretAccessKey);
  });

  it('fails before any call, in one sentence, when the platform region is missing', async () => {
    world = await createWorld([]);
    const run = await world.trigger(`/agent ${HELLO_TASK}`, {
      inputs: { provider: 'vertex', anthropic_api_key: '' },
      env: { GOOGLE_CLOUD_PROJECT: 'p' },
    });
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('::error::todo-agent failed: provider vertex needs CLOUD_ML_REGION');
    expect(world.model.requests).toEqual([]);
  });
});
