// The bundled action with keyless auth to the Claude API (Workload Identity Federation) and with
// `output_schema`. GitHub's OIDC token request is a local server (tests/support/github/oidc-server.ts); the
// scripted model server plays the token endpoint (tests/support/anthropic/federation.ts) and the
// structured outputs rules (structured-output.ts). A run whose access token expires mid-run completes; each
// exchange takes a fresh OIDC token; no token of either kind reaches a tool, the model, a comment, the log,
// the summary, the outputs or the record; each refusal ends the run with one line that names the fix.
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { reply, text, toolUse, type ScriptStep } from '../support/anthropic/server.js';
import { HELLO_FILES, HELLO_TASK, helloScript } from '../support/anthropic/scenarios.js';
import { startModelServer, type ScriptedModelServer } from '../support/anthropic/server.js';
import type { FederationServerOptions } from '../support/anthropic/federation.js';
import { GITHUB_OIDC_ISSUER, startOidcServer, type OidcServer } from '../support/github/oidc-server.js';
import { ACTION_USERS, createWorld, placesShown, type World } from './setup.js';

const FEDERATION: FederationServerOptions = {
  federationRuleId: 'fdrl_01e2eRuleExample',
  organizationId: '00000000-0000-4000-8000-00000000e2e0',
  serviceAccountId: 'svac_01e2eServiceAccount',
  issuer: GITHUB_OIDC_ISSUER,
  audience: 'https://api.anthropic.com',
  subject: /^repo:octo\/hello:/,
};

const KEYLESS_INPUTS = {
  anthropic_api_key: '',
  federation_rule_id: FEDERATION.federationRuleId,
  organization_id: FEDERATION.organizationId,
  service_account_id: FEDERATION.serviceAccountId,
};

let world: World | undefined;
let oidc: OidcServer | undefined;
afterEach(async () => {
  await Promise.all([world?.close(), oidc?.close()]);
  world = oidc = undefined;
});

/** The sample task with one more command: everything the tools' environment holds. */
function snoopingScript(): ScriptStep[] {
  const script = helloScript();
  script.splice(-2, 0, reply(toolUse('bash', { command: 'env | sort' })));
  return script;
}

const errorLines = (stdout: string) => stdout.split('\n').filter((line) => line.startsWith('::error'));

describe.each(ACTION_USERS)('keyless auth, the action run as $who', ({ as }) => {
  it('completes with a token that expires mid-run, each exchange with a fresh OIDC token, no token anywhere', async () => {
    world = await createWorld(snoopingScript(), { federation: { ...FEDERATION, requestsPerToken: 4 } });
    oidc = await startOidcServer();
    const run = await world.trigger('/agent tidy it up', {
      inputs: KEYLESS_INPUTS,
      env: oidc.env,
      ...(as ? { as } : {}),
    });
    expect(run.stderr).toBe('');
    expect(run.outputs.status).toBe('completed');
    expect(world.model.violations).toEqual([]);
    expect(world.model.remaining()).toBe(0);
    const tokens = world.model.tokens!;
    // The token ran out mid-run (401), was exchanged again and the request sent once more.
    expect(tokens.unauthorized).toContain('the access token has expired');
    expect(tokens.minted.length).toBeGreaterThanOrEqual(3);
    expect(tokens.exchanges.every((exchange) => exchange.refused === undefined)).toBe(true);
    // Each exchange took its own OIDC token, asked for the federation's audience.
    expect(new Set(tokens.assertions).size).toBe(tokens.assertions.length);
    expect(oidc.issued).toEqual(tokens.assertions);
    expect(new Set(oidc.audiences)).toEqual(new Set([FEDERATION.audience]));
    // Masked as each was minted, refreshed ones too.
    for (const secret of [...tokens.minted, ...oidc.issued])
      expect(run.stdout).toContain(`::add-mask::${secret}`);
    const record = await readFile(run.outputs.transcript!, 'utf8');
    const pr = world.github.state.pulls[0]!;
    const places = {
      'requests to the model': JSON.stringify(world.model.requests.map((request) => request.body)),
      ...placesShown(world, run, pr),
      record,
    };
    const envDump = JSON.stringify(world.model.requests.at(-2)!.body);
    expect(envDump).toContain('PATH=');
    expect(envDump).not.toContain('ACTIONS_ID_TOKEN_REQUEST');
    for (const [where, value] of Object.entries(places))
      for (const secret of [...tokens.minted, ...oidc.issued, oidc.env.ACTIONS_ID_TOKEN_REQUEST_TOKEN])
        expect(value.includes(secret), `a token in ${where}`).toBe(false);
  });
});

describe('keyless auth, short-lived tokens', () => {
  it('exchanges again before each token runs out, so no request goes with an expired one', async () => {
    // 20 s left is inside the SDK's 30 s mandatory window: every request needs a fresh token first.
    world = await createWorld(helloScript(), { federation: { ...FEDERATION, lifetimeSeconds: 20 } });
    oidc = await startOidcServer();
    const run = await world.trigger('/agent tidy it up', { inputs: KEYLESS_INPUTS, env: oidc.env });
    expect(run.outputs.status).toBe('completed');
    const tokens = world.model.tokens!;
    expect(tokens.unauthorized).toEqual([]);
    expect(tokens.minted.length).toBeGreaterThanOrEqual(world.model.requests.length);
    expect(new Set(tokens.assertions).size).toBe(tokens.assertions.length);
  });
});

describe('keyless auth refused', () => {
  it('GitHub refusing the OIDC token request ends the run in one line that names id-token: write', async () => {
    world = await createWorld(helloScript(), { federation: FEDERATION });
    oidc = await startOidcServer({ refuse: true });
    const run = await world.trigger('/agent tidy it up', { inputs: KEYLESS_INPUTS, env: oidc.env });
    expect(run.outputs.status).toBe('failed');
    expect(world.model.requests).toHaveLength(0);
    const errors = errorLines(run.stdout);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/GitHub refused the job's OIDC token request.*permissions: id-token: write/);
  });

  it('a job without id-token: write fails before any request, saying so', async () => {
    world = await createWorld(helloScript(), { federation: FEDERATION });
    const run = await world.trigger('/agent tidy it up', { inputs: KEYLESS_INPUTS });
    expect(run.code).not.toBe(0);
    expect(world.model.requests).toHaveLength(0);
    expect(world.model.tokens!.exchanges).toHaveLength(0);
    expect(run.stdout).toContain('add `permissions: id-token: write` to the job');
  });

  it('a wrong audience or a rule that refuses the token each names its fix', async () => {
    world = await createWorld(helloScript(), { federation: FEDERATION });
    oidc = await startOidcServer();
    const wrong = await world.trigger('/agent tidy it up', {
      inputs: { ...KEYLESS_INPUTS, audience: 'https://example.invalid/elsewhere' },
      env: oidc.env,
    });
    expect(wrong.outputs.status).toBe('failed');
    expect(errorLines(wrong.stdout)).toHaveLength(1);
    expect(errorLines(wrong.stdout)[0]).toMatch(/refused the OIDC token's audience .*set the audience input/);
    const refused = await world.trigger('/agent tidy it up', {
      inputs: { ...KEYLESS_INPUTS, service_account_id: 'svac_01someoneElse' },
      env: oidc.env,
      runId: '4343',
    });
    expect(refused.outputs.status).toBe('failed');
    expect(errorLines(refused.stdout)[0]).toMatch(
      /federation rule fdrl_01e2eRuleExample refused the job's OIDC token/,
    );
    expect(world.model.requests).toHaveLength(0);
  });
});

const SCHEMA = {
  type: 'object',
  properties: {
    risk: { enum: ['low', 'medium', 'high'] },
    files: { type: 'array', items: { type: 'string' } },
    lines: { type: 'integer', minimum: 0 },
  },
  required: ['risk', 'files', 'lines'],
  additionalProperties: false,
};

describe('output_schema', () => {
  it('ends with structured_output valid against the schema, in the outputs, the summary and the record', async () => {
    const answer = { risk: 'low', files: ['hello.py'], lines: 6 };
    world = await createWorld([...helloScript(), reply(text(JSON.stringify(answer)))]);
    const run = await world.trigger('/agent tidy it up', {
      inputs: { output_schema: JSON.stringify(SCHEMA) },
    });
    expect(run.outputs.status).toBe('completed');
    expect(world.model.violations).toEqual([]);
    expect(JSON.parse(run.outputs.structured_output!)).toEqual(answer);
    expect(run.summary).toContain('"risk": "low"');
    expect(await readFile(run.outputs.transcript!, 'utf8')).toContain(
      '"structuredOutput":{"value":{"risk":"low"',
    );
    // The working turns carried no schema; only the final request did, with the tools set aside.
    const requests = world.model.requests.map((request) => request.body as Record<string, unknown>);
    expect(
      requests
        .slice(0, -1)
        .every((body) => body.output_config === undefined || !('format' in (body.output_config as object))),
    ).toBe(true);
    const last = requests.at(-1)!;
    expect(last.tool_choice).toEqual({ type: 'none' });
    expect(JSON.stringify(last.output_config)).toContain('"json_schema"');
    expect(JSON.stringify(last.tools)).toBe(JSON.stringify(requests[0]!.tools));
    expect(JSON.stringify(last.system)).toBe(JSON.stringify(requests[0]!.system));
  });

  it('an answer that does not match is corrected once', async () => {
    const answer = { risk: 'low', files: [], lines: 2 };
    world = await createWorld([
      ...helloScript(),
      reply(text(JSON.stringify({ risk: 'none', files: [], lines: 2 }))),
      reply(text(JSON.stringify(answer))),
    ]);
    const run = await world.trigger('/agent tidy it up', {
      inputs: { output_schema: JSON.stringify(SCHEMA) },
    });
    expect(run.outputs.status).toBe('completed');
    expect(JSON.parse(run.outputs.structured_output!)).toEqual(answer);
    expect(JSON.stringify(world.model.requests.at(-1)!.body)).toContain(
      '/risk must be equal to one of the allowed values',
    );
  });

  it('one that never matches fails the step naming the first mismatch, structured_output empty, the PR kept', async () => {
    world = await createWorld([
      ...helloScript(),
      reply(text('{"risk": "low", "files": []}')),
      reply(text('{"risk": "low", "files": [], "lines": -1}')),
    ]);
    const run = await world.trigger('/agent tidy it up', {
      inputs: { output_schema: JSON.stringify(SCHEMA) },
    });
    expect(run.outputs.structured_output).toBe('');
    expect(run.code).not.toBe(0);
    expect(errorLines(run.stdout).join('\n')).toContain('after one correction: /lines must be >= 0');
    expect(world.github.state.pulls).toHaveLength(1);
  });

  it('a model without structured outputs gives its answer through a final tool call', async () => {
    const answer = { risk: 'high', files: ['hello.py'], lines: 12 };
    world = await createWorld([...helloScript(), reply(toolUse('final_answer', { answer }))]);
    const run = await world.trigger('/agent tidy it up', {
      inputs: { output_schema: JSON.stringify(SCHEMA), model: 'claude-sonnet-4' },
    });
    expect(world.model.violations).toEqual([]);
    expect(JSON.parse(run.outputs.structured_output!)).toEqual(answer);
    const last = world.model.requests.at(-1)!.body as {
      tools: Array<{ name: string }>;
      output_config?: unknown;
    };
    expect(last.tools.at(-1)!.name).toBe('final_answer');
    expect(JSON.stringify(last.output_config ?? {})).not.toContain('json_schema');
  });

  it('a schema structured outputs cannot take fails before any model request', async () => {
    world = await createWorld(helloScript());
    const recursive = {
      type: 'object',
      properties: { node: { $ref: '#/$defs/node' } },
      $defs: { node: { type: 'object', properties: { next: { $ref: '#/$defs/node' } } } },
    };
    const run = await world.trigger('/agent tidy it up', {
      inputs: { output_schema: JSON.stringify(recursive) },
    });
    expect(world.model.requests).toHaveLength(0);
    expect(run.stdout).toContain('recursive schemas are not taken');
  });
});

describe('the CLI, keyless and with --output-schema', () => {
  let dir: string | undefined;
  let server: ScriptedModelServer | undefined;
  afterEach(async () => {
    await server?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
    server = dir = undefined;
  });

  it('authenticates from its environment and prints only the answer on stdout', async () => {
    dir = await mkdtemp(join(tmpdir(), 'cli-keyless-'));
    await writeFile(join(dir, 'hello.py'), HELLO_FILES['hello.py']!);
    await writeFile(join(dir, 'schema.json'), JSON.stringify(SCHEMA));
    const answer = { risk: 'medium', files: ['hello.py'], lines: 9 };
    server = await startModelServer([...helloScript(), reply(text(JSON.stringify(answer)))], {
      federation: FEDERATION,
    });
    // The file holds a GitHub OIDC token, as the docs' workflow step writes one for a tool that reads a file.
    oidc = await startOidcServer();
    const tokenFile = join(dir, 'oidc-token');
    const fill = async () => {
      const response = await fetch(
        `${oidc!.env.ACTIONS_ID_TOKEN_REQUEST_URL}&audience=${FEDERATION.audience}`,
        {
          headers: { authorization: `Bearer ${oidc!.env.ACTIONS_ID_TOKEN_REQUEST_TOKEN}` },
        },
      );
      await writeFile(tokenFile, ((await response.json()) as { value: string }).value);
    };
    await fill();
    const child = spawn(
      process.execPath,
      [resolve(import.meta.dirname, '../../dist/cli.js'), HELLO_TASK, '--output-schema', 'schema.json'],
      {
        cwd: dir,
        env: {
          PATH: process.env.PATH ?? '',
          HOME: dir,
          ANTHROPIC_BASE_URL: server.url,
          ANTHROPIC_FEDERATION_RULE_ID: FEDERATION.federationRuleId,
          ANTHROPIC_ORGANIZATION_ID: FEDERATION.organizationId,
          ANTHROPIC_SERVICE_ACCOUNT_ID: FEDERATION.serviceAccountId,
          ANTHROPIC_IDENTITY_TOKEN_FILE: tokenFile,
        },
      },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const code = await new Promise<number | null>((done) => child.on('close', done));
    expect(server.violations).toEqual([]);
    expect(code).toBe(0);
    expect(stdout).toBe(`${JSON.stringify(answer)}\n`);
    expect(stderr).toContain('Final todo list');
    const minted = server.tokens!.minted;
    expect(minted.length).toBeGreaterThanOrEqual(1);
    for (const secret of [...minted, ...oidc.issued]) expect(stderr.includes(secret)).toBe(false);
  });
});
