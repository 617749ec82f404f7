// Settings: defaults, validation with one readable line per problem, and which values count as secrets.
import { describe, expect, it } from 'vitest';
import { readSettings, secretValues, SettingsError } from '../src/settings.js';

const RUNNER = {
  GITHUB_REPOSITORY: 'octo-org/hello-world',
  GITHUB_EVENT_NAME: 'issue_comment',
  GITHUB_EVENT_PATH: '/tmp/event.json',
  GITHUB_RUN_ID: '4242',
  GITHUB_SERVER_URL: 'https://github.example.com/',
  GITHUB_API_URL: 'https://api.github.example.com/',
  GITHUB_WORKSPACE: '/work/repo',
};
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

describe('readSettings', () => {
  it('applies the defaults of action.yml when inputs are empty or missing', () => {
    const settings = readSettings({ ...RUNNER, ...KEYS, INPUT_MAX_TURNS: '', INPUT_MODEL: '  ' });
    expect(settings.inputs).toMatchObject({
      anthropic_api_key: 'sk-ant-settings-test',
      github_token: 'ghs_settings-test',
      anthropic_base_url: '',
      trigger: '/agent',
      max_turns: 60,
      bash_timeout: 120,
      reminder_rounds: 3,
      base_branch: '',
      draft: false,
      branch_prefix: 'agent/',
    });
    expect(settings.inputs.model).toMatch(/^claude-/);
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
      'anthropic_api_key is required (store the key as a repository secret)',
    );
    expect(settingsError({ ...RUNNER, INPUT_ANTHROPIC_API_KEY: 'sk', INPUT_GITHUB_TOKEN: '  ' })).toBe(
      'github_token is required (the default is the workflow token)',
    );
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
      'anthropic_api_key is required (store the key as a repository secret)',
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
