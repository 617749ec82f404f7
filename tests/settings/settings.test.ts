// Settings: defaults, validation with one readable line per problem, and which values count as secrets.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_MAX_COST_USD,
  INPUT_NAMES,
  readSettings,
  secretValues,
  SettingsError,
} from '../../src/settings/settings.js';
import { NUMBER_SETTINGS } from '../../src/settings/parse.js';
import { RUNNER_ENV } from '../support/runner-env.js';

const RUNNER = RUNNER_ENV;
const KEYS = { INPUT_ANTHROPIC_API_KEY: 'sk-ant-settings-test', INPUT_GITHUB_TOKEN: 'ghs_settings-test' };

const settingsError = (env: NodeJS.ProcessEnv): string => {
  try {
    readSettings(env);
  } catch (error) {
    expect(error).toBeInstanceOf(SettingsError);
    return (error as Error).message;
  }
  return expect.fail('readSettings accepted the environment');
};

/** action.yml's inputs and their defaults, read with a pattern (its layout is fixed: two-space names). */
function actionDefaults(): Record<string, string> {
  const yml = readFileSync(new URL('../../action.yml', import.meta.url), 'utf8');
  const inputs = yml.slice(yml.indexOf('\ninputs:'), yml.indexOf('\noutputs:'));
  const found: Record<string, string> = {};
  for (const [, name, body] of inputs.matchAll(/^ {2}(\w+):\n((?: {4}.*\n?)*)/gm)) {
    found[name!] = /^ {4}default: '?(.*?)'?$/m.exec(body!)?.[1] ?? '(none)';
  }
  return found;
}

describe('action.yml', () => {
  it('declares every input the settings read, with the same defaults', () => {
    const defaults = actionDefaults();
    expect(Object.keys(defaults).sort()).toEqual([...INPUT_NAMES].sort());
    for (const [name, { fallback }] of Object.entries(NUMBER_SETTINGS)) {
      expect(defaults[name], name).toBe(String(fallback));
    }
    expect(defaults.max_cost_usd).toBe(String(DEFAULT_MAX_COST_USD));
    expect(defaults.verify_command).toBe('');
  });

  it('documents, for every input left empty, the value the settings then take', () => {
    const documented = actionDefaults();
    const { inputs } = readSettings({
      ...RUNNER,
      INPUT_GITHUB_TOKEN: KEYS.INPUT_GITHUB_TOKEN,
      ANTHROPIC_API_KEY: 'sk-ant-env',
    });
    for (const name of INPUT_NAMES) {
      if (name === 'github_token' || name === 'anthropic_api_key') continue; // an expression, and the env fallback
      const taken = inputs[name];
      expect(taken === undefined ? '' : String(taken), name).toBe(documented[name]);
    }
  });
});

describe('readSettings', () => {
  it('reads the new model inputs: max_context_tokens, effort and price_per_mtok, all empty by default', () => {
    expect(readSettings({ ...RUNNER, ...KEYS }).inputs).toMatchObject({
      max_context_tokens: undefined,
      effort: undefined,
      price_per_mtok: undefined,
    });
    const settings = readSettings({
      ...RUNNER,
      ...KEYS,
      INPUT_MAX_CONTEXT_TOKENS: '200000',
      INPUT_EFFORT: ' xhigh ',
      INPUT_PRICE_PER_MTOK: '3, 15.5',
    });
    expect(settings.inputs).toMatchObject({
      max_context_tokens: 200_000,
      effort: 'xhigh',
      price_per_mtok: { input: 3, output: 15.5 },
    });
  });

  it.each([
    [
      'INPUT_MAX_CONTEXT_TOKENS',
      '19999',
      "max_context_tokens must be a whole number of tokens from 20000 to 10000000, got '19999'",
    ],
    ['INPUT_EFFORT', 'none', "effort must be one of low, medium, high, xhigh, max, got 'none'"],
    [
      'INPUT_PRICE_PER_MTOK',
      '3,-1',
      `price_per_mtok must be two positive numbers of US dollars, "input,output" (like "3,15"), got '3,-1'`,
    ],
    [
      'INPUT_PRICE_PER_MTOK',
      '3,15,1',
      `price_per_mtok must be two positive numbers of US dollars, "input,output" (like "3,15"), got '3,15,1'`,
    ],
  ])('refuses %s=%j with one line', (name, value, message) => {
    expect(settingsError({ ...RUNNER, ...KEYS, [name]: value })).toBe(message);
  });

  it('takes the key and base URL from ANTHROPIC_API_KEY and ANTHROPIC_BASE_URL when the inputs are empty', () => {
    const env = {
      ...RUNNER,
      INPUT_GITHUB_TOKEN: 'ghs_x',
      ANTHROPIC_API_KEY: 'sk-env',
      ANTHROPIC_BASE_URL: 'http://gw',
    };
    expect(readSettings(env).inputs).toMatchObject({
      anthropic_api_key: 'sk-env',
      anthropic_base_url: 'http://gw',
    });
    expect(readSettings({ ...env, INPUT_ANTHROPIC_API_KEY: 'sk-input' }).inputs.anthropic_api_key).toBe(
      'sk-input',
    );
    expect(settingsError({ ...RUNNER, INPUT_GITHUB_TOKEN: 'ghs_x' })).toBe(
      'no Anthropic API key: set the anthropic_api_key input (from a repository secret) or ANTHROPIC_API_KEY in the job’s env',
    );
  });

  it.each(['bedrock', 'vertex', ' bedrock '])(
    'leaves ANTHROPIC_BASE_URL to the Anthropic API: provider %j keeps its own endpoint',
    (provider) => {
      const env = {
        ...RUNNER,
        INPUT_GITHUB_TOKEN: 'ghs_x',
        INPUT_PROVIDER: provider,
        ANTHROPIC_BASE_URL: 'https://gateway.example/anthropic',
        AWS_REGION: 'us-east-1',
        CLOUD_ML_REGION: 'us-east5',
        ANTHROPIC_VERTEX_PROJECT_ID: 'project-1',
      };
      const { inputs } = readSettings(env);
      expect(inputs.provider).toBe(provider.trim());
      expect(inputs.anthropic_base_url).toBe('');
      // The input itself still applies (a proxy in front of the platform, or a local server in tests).
      expect(
        readSettings({ ...env, INPUT_ANTHROPIC_BASE_URL: 'http://127.0.0.1:9/' }).inputs.anthropic_base_url,
      ).toBe('http://127.0.0.1:9/');
    },
  );

  it('applies the defaults of action.yml when inputs are empty or missing', () => {
    const settings = readSettings({ ...RUNNER, ...KEYS, INPUT_MAX_TURNS: '', INPUT_MODEL: '  ' });
    expect(settings.inputs).toMatchObject({
      anthropic_api_key: 'sk-ant-settings-test',
      github_token: 'ghs_settings-test',
      anthropic_base_url: '',
      trigger: '/agent',
      max_turns: 150,
      bash_timeout: 600,
      reminder_rounds: 3,
      max_cost_usd: 5,
      verify_command: '',
      verify_attempts: 3,
      base_branch: '',
      draft: false,
      branch_prefix: 'agent/',
      sandbox: 'on',
      tool_network: 'allowlist',
      allowed_hosts: [],
    });
    expect(settings.inputs.model).toMatch(/^claude-/);
    expect(settings.notices).toEqual([]);
  });

  it('lets a workflow raise or clear the cost limit, and reads the verify gate', () => {
    const read = (env: Record<string, string>) => readSettings({ ...RUNNER, ...KEYS, ...env }).inputs;
    expect(read({ INPUT_MAX_COST_USD: '12.5' }).max_cost_usd).toBe(12.5);
    expect(read({ INPUT_MAX_COST_USD: '0' }).max_cost_usd).toBeUndefined();
    expect(read({ INPUT_MAX_COST_USD: 'None' }).max_cost_usd).toBeUndefined();
    expect(settingsError({ ...RUNNER, ...KEYS, INPUT_MAX_COST_USD: '-1' })).toBe(
      "max_cost_usd must be a positive number of dollars, or 0 (or none) for no limit, got '-1'",
    );
    expect(read({ INPUT_VERIFY_COMMAND: ' npm test ', INPUT_VERIFY_ATTEMPTS: '5' })).toMatchObject({
      verify_command: 'npm test',
      verify_attempts: 5,
    });
    expect(settingsError({ ...RUNNER, ...KEYS, INPUT_VERIFY_ATTEMPTS: '0' })).toBe(
      "verify_attempts must be a whole number from 1 to 20, got '0'",
    );
    // The task tool: 0 helpers side by side turns it off; a helper's turns start at 1.
    expect(read({})).toMatchObject({ max_parallel_tasks: 3, task_max_turns: 40 });
    expect(read({ INPUT_MAX_PARALLEL_TASKS: '0', INPUT_TASK_MAX_TURNS: '12' })).toMatchObject({
      max_parallel_tasks: 0,
      task_max_turns: 12,
    });
    expect(settingsError({ ...RUNNER, ...KEYS, INPUT_MAX_PARALLEL_TASKS: '11' })).toBe(
      "max_parallel_tasks must be a whole number from 0 to 10, got '11'",
    );
    expect(settingsError({ ...RUNNER, ...KEYS, INPUT_TASK_MAX_TURNS: '0' })).toBe(
      "task_max_turns must be a whole number from 1 to 1000, got '0'",
    );
  });

  it('reads the runner context, without trailing slashes on URLs', () => {
    const settings = readSettings({ ...RUNNER, ...KEYS });
    expect(settings).toMatchObject({
      owner: 'octo-org',
      repo: 'hello-world',
      eventName: 'issue_comment',
      runId: '4242',
      serverUrl: 'https://github.example.com',
      apiUrl: 'https://api.github.example.com',
      runUrl: 'https://github.example.com/octo-org/hello-world/actions/runs/4242',
      workspace: '/work/repo',
    });
  });

  it('trims and converts inputs', () => {
    const settings = readSettings({
      ...RUNNER,
      ...KEYS,
      INPUT_MAX_TURNS: ' 12 ',
      INPUT_BASH_TIMEOUT: '3600',
      INPUT_TRIGGER: ' /bot ',
      INPUT_BRANCH_PREFIX: 'bots/todo-',
    });
    expect(settings.inputs).toMatchObject({
      max_turns: 12,
      bash_timeout: 3600,
      trigger: '/bot',
      branch_prefix: 'bots/todo-',
    });
  });

  it.each([
    ['true', true],
    [' TRUE ', true],
    ['False', false],
    ['', false],
  ])('reads draft %j as %s', (value, expected) => {
    expect(readSettings({ ...RUNNER, ...KEYS, INPUT_DRAFT: value }).inputs.draft).toBe(expected);
  });

  it.each(['yes', '1', 'tRue'])('refuses draft %j with one line naming the input', (value) => {
    expect(settingsError({ ...RUNNER, ...KEYS, INPUT_DRAFT: value })).toBe(
      `draft must be true or false, got '${value}'`,
    );
  });

  it.each(['abc', '0', '-5', '1.5', '1e2', '0x10', '1001', '12 turns'])(
    'refuses max_turns %j with one line naming the input, the range and the value',
    (value) => {
      expect(settingsError({ ...RUNNER, ...KEYS, INPUT_MAX_TURNS: value })).toBe(
        `max_turns must be a whole number from 1 to 1000, got '${value.trim()}'`,
      );
    },
  );

  it.each([
    'agent branch/',
    'a..b/',
    'feat~1/',
    'x^/',
    'y:/',
    'what?/',
    'glob*/',
    'set[/',
    'back\\slash/',
    'at@{/',
  ])('refuses branch_prefix %j', (value) => {
    expect(settingsError({ ...RUNNER, ...KEYS, INPUT_BRANCH_PREFIX: value })).toBe(
      'branch_prefix must be usable in a git branch name',
    );
  });

  it('refuses a missing key or token, saying where it comes from', () => {
    expect(settingsError({ ...RUNNER, INPUT_GITHUB_TOKEN: 'ghs_x' })).toBe(
      'no Anthropic API key: set the anthropic_api_key input (from a repository secret) or ANTHROPIC_API_KEY in the job’s env',
    );
    expect(settingsError({ ...RUNNER, INPUT_ANTHROPIC_API_KEY: 'sk', INPUT_GITHUB_TOKEN: '  ' })).toBe(
      'github_token is required (the default is the workflow token)',
    );
  });

  it('reads sandbox and tool_network, case-insensitive, and refuses anything else', () => {
    const settings = readSettings({ ...RUNNER, ...KEYS, INPUT_SANDBOX: ' OFF ', INPUT_TOOL_NETWORK: 'None' });
    expect(settings.inputs).toMatchObject({ sandbox: 'off', tool_network: 'none' });
    expect(settingsError({ ...RUNNER, ...KEYS, INPUT_SANDBOX: 'false', INPUT_TOOL_NETWORK: 'host' })).toBe(
      "sandbox must be on or off, got 'false'; tool_network must be allowlist, all or none, got 'host'",
    );
    expect(readSettings({ ...RUNNER, ...KEYS, INPUT_TOOL_NETWORK: 'All' }).inputs.tool_network).toBe('all');
  });

  it('reads tool_network: allow, its old name, as all, with a warning for the log', () => {
    const settings = readSettings({ ...RUNNER, ...KEYS, INPUT_TOOL_NETWORK: ' allow ' });
    expect(settings.inputs.tool_network).toBe('all');
    expect(settings.notices).toEqual([
      expect.stringMatching(/^tool_network: allow is the old name of tool_network: all/),
    ]);
  });

  it('reads allowed_hosts one per line or comma-separated, and names an entry that is no host', () => {
    const settings = readSettings({
      ...RUNNER,
      ...KEYS,
      INPUT_ALLOWED_HOSTS:
        'Example.COM, *.corp.example\n  localhost:5432\n[::1]:6379,https://mirror.example:8443/simple\n',
    });
    expect(settings.inputs.allowed_hosts).toEqual([
      { host: 'example.com', source: 'allowed_hosts' },
      { host: '*.corp.example', source: 'allowed_hosts' },
      { host: 'localhost', port: 5432, source: 'allowed_hosts' },
      { host: '::1', port: 6379, source: 'allowed_hosts' },
      { host: 'mirror.example', port: 8443, source: 'allowed_hosts' },
    ]);
    expect(settingsError({ ...RUNNER, ...KEYS, INPUT_ALLOWED_HOSTS: 'ok.example, bad host!' })).toBe(
      "allowed_hosts: 'host!' is not a host name, a *.example.com wildcard, an address or host:port",
    );
    expect(settingsError({ ...RUNNER, ...KEYS, INPUT_ALLOWED_HOSTS: '*' })).toBe(
      "allowed_hosts: '*' would allow every host; set tool_network: all for that",
    );
  });

  it('reads the provider, which needs no API key but its own region and project', () => {
    const bedrock = readSettings({
      ...RUNNER,
      INPUT_GITHUB_TOKEN: 'ghs_x',
      INPUT_PROVIDER: ' bedrock ',
      AWS_REGION: 'us-east-1',
    });
    expect(bedrock.inputs).toMatchObject({ provider: 'bedrock', anthropic_api_key: '' });
    expect(readSettings({ ...RUNNER, ...KEYS }).inputs.provider).toBe('anthropic');
    expect(
      settingsError({
        ...RUNNER,
        INPUT_GITHUB_TOKEN: 'ghs_x',
        INPUT_PROVIDER: 'vertex',
        CLOUD_ML_REGION: 'global',
      }),
    ).toMatch(/^provider vertex needs a project id/);
    expect(settingsError({ ...RUNNER, ...KEYS, INPUT_PROVIDER: 'azure' })).toBe(
      "provider must be one of anthropic, bedrock, vertex, got 'azure'",
    );
  });

  it('takes the API key from ANTHROPIC_API_KEY when the input is empty', () => {
    expect(
      readSettings({ ...RUNNER, INPUT_GITHUB_TOKEN: 'ghs_x', ANTHROPIC_API_KEY: 'sk-ant-env' }).inputs
        .provider,
    ).toBe('anthropic');
  });

  it('refuses a trigger of more than one word', () => {
    expect(settingsError({ ...RUNNER, ...KEYS, INPUT_TRIGGER: '/run agent' })).toBe(
      'trigger must be one word, like /agent',
    );
  });

  it('puts every problem on one line, separated by semicolons', () => {
    const message = settingsError({ ...RUNNER, INPUT_MAX_TURNS: 'many', INPUT_BRANCH_PREFIX: 'a b' });
    expect(message).not.toContain('\n');
    expect(message.split('; ')).toEqual([
      'no Anthropic API key: set the anthropic_api_key input (from a repository secret) or ANTHROPIC_API_KEY in the job’s env',
      'github_token is required (the default is the workflow token)',
      "max_turns must be a whole number from 1 to 1000, got 'many'",
      'branch_prefix must be usable in a git branch name',
    ]);
  });

  it('says when it is not running in GitHub Actions', () => {
    const { GITHUB_EVENT_NAME: _n, GITHUB_EVENT_PATH: _p, ...rest } = RUNNER;
    expect(settingsError({ ...rest, ...KEYS })).toBe(
      'GITHUB_EVENT_NAME is not set: is this running in GitHub Actions?; GITHUB_EVENT_PATH is not set: is this running in GitHub Actions?',
    );
    const { GITHUB_REPOSITORY: _r, ...noRepository } = RUNNER;
    expect(settingsError({ ...noRepository, ...KEYS })).toBe(
      'GITHUB_REPOSITORY is not set: is this running in GitHub Actions?',
    );
    expect(settingsError({ ...RUNNER, ...KEYS, GITHUB_REPOSITORY: 'no-slash' })).toBe(
      'GITHUB_REPOSITORY must be owner/repo',
    );
  });
});

describe('secretValues', () => {
  const env = {
    INPUT_ANTHROPIC_API_KEY: 'sk-ant-secret-value-1',
    INPUT_GITHUB_TOKEN: ' ghs_secretValue2 \n',
    INPUT_MODEL: 'claude-sonnet-5-5',
    INPUT_TRIGGER: '/agent',
    ACTIONS_RUNTIME_TOKEN: 'runtime-token-value-3',
    ACTIONS_ID_TOKEN_REQUEST_URL: 'https://token.actions.example/abc',
    ACTIONS_STEP_DEBUG: 'true',
    NPM_AUTH_TOKEN: 'npm-token-value-4',
    DB_PASSWORD: 'hunter2hunter2',
    MY_PRIVATE_KEY: '-----BEGIN KEY-----',
    HOME: '/home/runner',
    PATH: '/usr/bin:/bin',
    SHORT_TOKEN: 'abc',
  };
  const values = secretValues(env);

  it('includes keys, tokens, every ACTIONS_* value and anything named like a credential, trimmed', () => {
    for (const secret of [
      'sk-ant-secret-value-1',
      'ghs_secretValue2',
      'runtime-token-value-3',
      'https://token.actions.example/abc',
      'npm-token-value-4',
      'hunter2hunter2',
      '-----BEGIN KEY-----',
    ])
      expect(values).toContain(secret);
  });

  it('leaves out plain settings, ordinary variables and values too short to mask safely', () => {
    for (const plain of ['claude-sonnet-5-5', '/agent', 'true', '/home/runner', '/usr/bin:/bin', 'abc'])
      expect(values).not.toContain(plain);
  });

  it('adds each token in the base64 form git sends it in, as actions/checkout persists it', () => {
    const header = Buffer.from('x-access-token:ghs_secretValue2').toString('base64');
    expect(values).toContain(header);
    expect(new Set(values).size).toBe(values.length);
  });
});

describe('mcp_servers', () => {
  it('reads inline JSON into the settings, with ${VAR} filled from the job environment', () => {
    const settings = readSettings({
      ...RUNNER,
      ...KEYS,
      DB_TOKEN: 'db-token-value',
      INPUT_MCP_SERVERS:
        '{"mcpServers": {"db": {"command": "db-mcp", "env": {"T": "${DB_TOKEN}"}, "tools": ["q"]}}}',
    });
    expect(settings.mcp).toEqual({
      kind: 'inline',
      config: {
        servers: [{ name: 'db', command: 'db-mcp', args: [], env: { T: 'db-token-value' }, tools: ['q'] }],
        secrets: ['db-token-value'],
      },
    });
    expect(settings.inputs.mcp_timeout).toBe(60);
  });

  it('keeps a path for the base branch, and has no servers when empty', () => {
    expect(readSettings({ ...RUNNER, ...KEYS, INPUT_MCP_SERVERS: '.mcp.json' }).mcp).toEqual({
      kind: 'file',
      path: '.mcp.json',
    });
    expect(readSettings({ ...RUNNER, ...KEYS }).mcp).toBeUndefined();
  });

  it('stops the run before it starts when a server lists no tools, beside the other problems', () => {
    expect(
      settingsError({
        ...RUNNER,
        ...KEYS,
        INPUT_MAX_TURNS: '0',
        INPUT_MCP_SERVERS: '{"mcpServers": {"db": {"command": "db-mcp"}}}',
      }),
    ).toBe(
      'mcp_servers: server "db": tools is required: list the tools the model may use (exact names, or "*" for all of them); max_turns must be a whole number from 1 to 1000, got \'0\'',
    );
  });
});
