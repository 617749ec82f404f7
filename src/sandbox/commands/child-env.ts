// The environment handed to the agent's commands: the runner's, minus anything that could be a secret.
import { withoutUrlCredentials } from '../../text/redact.js';

const SECRET_PREFIXES = ['INPUT_', 'ACTIONS_', 'ANTHROPIC_'];
const SECRET_NAMES = new Set(['GITHUB_TOKEN', 'GH_TOKEN']);
/** Names that hold credentials, wherever they appear (the action masks and redacts their values too). */
export const SECRET_NAME_PATTERN =
  /(TOKEN|SECRET|PASSWORD|API_?KEY|APIKEY|PRIVATE_KEY|ACCESS_KEY|CREDENTIALS?)/i;
/** GitHub and Anthropic token shapes, found anywhere in a value (e.g. inside a URL). */
const TOKEN_VALUE_PATTERN = /(gh[pousr]_|github_pat_|sk-ant-)[A-Za-z0-9_-]{8,}/;
/**
 * Runner file commands: writing to these would set env vars, outputs or PATH for the workflow's later
 * steps, which the agent's shell has no business doing.
 */
const RUNNER_FILE_COMMANDS = new Set([
  'GITHUB_ENV',
  'GITHUB_OUTPUT',
  'GITHUB_PATH',
  'GITHUB_STATE',
  'GITHUB_STEP_SUMMARY',
]);
/** Below this length a secret is only matched whole, so short values cannot blank unrelated ones. */
const MIN_EMBEDDED_SECRET_LENGTH = 8;

const FORCED: Record<string, string> = { GIT_TERMINAL_PROMPT: '0', PAGER: 'cat', GIT_PAGER: 'cat' };

/** Variables that name a registry or index (pip's, uv's, npm's, yarn's, Go's, cargo's): their URLs' logins go. */
const REGISTRY_VARIABLE =
  /^(?:PIP_(?:EXTRA_)?INDEX_URL|PIP_FIND_LINKS|UV_\w*INDEX\w*|npm_config_\w*registry|YARN_NPM_REGISTRY_SERVER|GOPROXY|CARGO_REGISTRIES_\w+_INDEX)$/i;

function isSecretName(name: string): boolean {
  const upper = name.toUpperCase();
  return (
    SECRET_PREFIXES.some((prefix) => upper.startsWith(prefix)) ||
    SECRET_NAMES.has(upper) ||
    RUNNER_FILE_COMMANDS.has(upper) ||
    SECRET_NAME_PATTERN.test(name)
  );
}

function holdsSecret(value: string, secrets: readonly string[]): boolean {
  if (TOKEN_VALUE_PATTERN.test(value)) return true;
  return secrets.some(
    (secret) =>
      secret.length > 0 &&
      (value === secret || (secret.length >= MIN_EMBEDDED_SECRET_LENGTH && value.includes(secret))),
  );
}

/** A copy of `source` without secrets, with git and pagers set to never wait for a terminal. */
export function childEnv(
  source: NodeJS.ProcessEnv = process.env,
  extraSecrets: string[] = [],
): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(source)) {
    if (value === undefined || isSecretName(name) || holdsSecret(value, extraSecrets)) continue;
    env[name] = REGISTRY_VARIABLE.test(name) ? withoutUrlCredentials(value) : value;
  }
  return { ...env, ...FORCED };
}
