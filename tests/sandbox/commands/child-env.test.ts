import { describe, expect, it } from 'vitest';
import { childEnv } from '../../../src/sandbox/commands/child-env.js';

/** The ordinary variables of a runner's job: every one is handed on as it is. */
const ORDINARY = {
  PATH: '/usr/bin:/bin',
  HOME: '/home/runner',
  LANG: 'C.UTF-8',
  CI: 'true',
  GITHUB_WORKSPACE: '/work/repo',
  GITHUB_REPOSITORY: 'octo/repo',
  GITHUB_RUN_ID: '123',
};

const source: NodeJS.ProcessEnv = {
  ...ORDINARY,
  INPUT_GITHUB_TOKEN: 'input-token-value',
  INPUT_MODEL: 'claude',
  ACTIONS_RUNTIME_TOKEN: 'runtime',
  ACTIONS_ID_TOKEN_REQUEST_URL: 'https://example.test/oidc',
  ACTIONS_ID_TOKEN_REQUEST_TOKEN: 'oidc',
  GITHUB_TOKEN: 'gh-token',
  GH_TOKEN: 'gh-cli-token',
  ANTHROPIC_API_KEY: 'anthropic-key',
  ANTHROPIC_BASE_URL: 'https://api.example.test',
  NPM_TOKEN: 'npm',
  my_secret: 'lower-case name',
  DB_PASSWORD: 'pw',
  OPENAI_APIKEY: 'k',
  SSH_PRIVATE_KEY: 'key',
  GOOGLE_APPLICATION_CREDENTIALS: '/creds.json',
  AWS_CREDENTIAL: 'c',
  GITHUB_ENV: '/runner/file_commands/set_env',
  GITHUB_OUTPUT: '/runner/file_commands/set_output',
  INNOCENT_NAME: 'ghp_0123456789abcdefghijABCDEFGHIJ012345',
  REMOTE_URL: 'https://x-access-token:ghs_0123456789abcdefghij@github.com/octo/repo',
  FINE_GRAINED: 'github_pat_11ABCDEFG0123456789_abcdef',
  CLAUDE: 'sk-ant-api03-abcdefghijklmnop',
  PLAIN: 'ghp_ is just text here',
  PAGER: 'less',
  UNDEFINED_VALUE: undefined,
};

describe('childEnv', () => {
  const env = childEnv(source);

  it('keeps the ordinary variables', () => {
    expect(env).toMatchObject({ ...ORDINARY, PLAIN: 'ghp_ is just text here' });
  });

  it("keeps a registry variable's URLs without their logins, and every other URL as it is", () => {
    const urls = childEnv({
      PIP_INDEX_URL: 'https://ci:pip_secret0001@pypi.corp.test/simple',
      PIP_EXTRA_INDEX_URL: 'https://a.corp.test/simple https://tok@b.corp.test/simple',
      npm_config_registry: 'https://u:p@npm.corp.test/',
      GOPROXY: 'https://go:pw@goproxy.corp.test,direct',
      DATABASE_URL: 'postgres://app:app@localhost:5432/app',
    });
    expect(urls).toMatchObject({
      PIP_INDEX_URL: 'https://pypi.corp.test/simple',
      PIP_EXTRA_INDEX_URL: 'https://a.corp.test/simple https://b.corp.test/simple',
      npm_config_registry: 'https://npm.corp.test/',
      GOPROXY: 'https://goproxy.corp.test,direct',
      // A job's own service is the tools' to reach as the job set it.
      DATABASE_URL: 'postgres://app:app@localhost:5432/app',
    });
  });

  it('drops secrets by name', () => {
    for (const name of [
      'INPUT_GITHUB_TOKEN',
      'INPUT_MODEL',
      'ACTIONS_RUNTIME_TOKEN',
      'ACTIONS_ID_TOKEN_REQUEST_URL',
      'ACTIONS_ID_TOKEN_REQUEST_TOKEN',
      'GITHUB_TOKEN',
      'GH_TOKEN',
      'ANTHROPIC_API_KEY',
      'ANTHROPIC_BASE_URL',
      'NPM_TOKEN',
      'my_secret',
      'DB_PASSWORD',
      'OPENAI_APIKEY',
      'SSH_PRIVATE_KEY',
      'GOOGLE_APPLICATION_CREDENTIALS',
      'AWS_CREDENTIAL',
    ]) {
      expect(env, name).not.toHaveProperty(name);
    }
  });

  it('drops the runner file commands that would reach later workflow steps', () => {
    expect(env).not.toHaveProperty('GITHUB_ENV');
    expect(env).not.toHaveProperty('GITHUB_OUTPUT');
  });

  it('drops values shaped like GitHub or Anthropic tokens, even inside a URL', () => {
    for (const name of ['INNOCENT_NAME', 'REMOTE_URL', 'FINE_GRAINED', 'CLAUDE']) {
      expect(env, name).not.toHaveProperty(name);
    }
  });

  it('drops values equal to, or containing, an extra secret', () => {
    const filtered = childEnv(
      { KEEP: 'fine', SAME: 'opaque-secret-value', URL: 'https://u:opaque-secret-value@host', SHORT: 'abc' },
      ['opaque-secret-value', 'abc', ''],
    );
    expect(filtered).toMatchObject({ KEEP: 'fine' });
    expect(filtered).not.toHaveProperty('SAME');
    expect(filtered).not.toHaveProperty('URL');
    expect(filtered).not.toHaveProperty('SHORT');
  });

  it('sets git and pagers to never wait for a terminal', () => {
    expect(env.GIT_TERMINAL_PROMPT).toBe('0');
    expect(env.PAGER).toBe('cat');
    expect(env.GIT_PAGER).toBe('cat');
  });

  it('leaves its source untouched and skips undefined values', () => {
    expect(source.GITHUB_TOKEN).toBe('gh-token');
    expect(source.PAGER).toBe('less');
    expect(Object.keys(env)).not.toContain('UNDEFINED_VALUE');
  });

  it('defaults to process.env', () => {
    expect(childEnv().PATH).toBe(process.env.PATH);
  });
});
