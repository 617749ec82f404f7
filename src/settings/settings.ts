// The action's inputs and runner context, read and validated once into one typed settings object.
import { tmpdir } from 'node:os';
import { z } from 'zod';
import { SECRET_NAME_PATTERN } from '../sandbox/commands/child-env.js';
import { DEFAULT_MODEL } from '../model/catalogue.js';
import { credentialFileSecrets } from '../sandbox/credential-files.js';
import { providerProblem, type Provider } from '../model/providers.js';
import type { Federation } from '../model/federation.js';
import { readOutputSchemaSetting, type OutputSchemaSetting } from './output-schema.js';
import {
  DEFAULT_AUDIENCE,
  deprecatedToolNetwork,
  SETTING_RULES,
  wholeNumberRule,
  type Rule,
} from './parse.js';
import { parseAllowedHosts } from '../network/hosts.js';
import { runUrl } from '../github/urls.js';
import { McpConfigError, readMcpServersSetting, type McpServersSetting } from './mcp-servers.js';

/** The cost limit when the workflow sets none: a few dollars, enough for a real task, not for a runaway. */
export const DEFAULT_MAX_COST_USD = 5;

/** The value a rule makes of a trimmed input, or the rule's problem as a schema issue. */
function check<T>(value: string, rule: Rule<T>, context: z.RefinementCtx): T {
  const parsed = rule.parse(value);
  if (parsed !== undefined) return parsed;
  context.addIssue({ code: 'custom', message: rule.problem(value) });
  return z.NEVER;
}

/** An input read by its rule; empty is the rule's default. */
const ruled = <T>(rule: Rule<T>) =>
  z
    .string()
    .trim()
    .transform((value, context) => check(value, rule, context));

/** An optional input: empty is undefined, anything else must parse by its rule. */
const optional = <T>(rule: Rule<T>) =>
  z
    .string()
    .trim()
    .transform((value, context) => (value === '' ? undefined : check(value, rule, context)));

const text = (fallback = '') =>
  z
    .string()
    .trim()
    .transform((value) => value || fallback);

/** A YAML 1.2 boolean as the runner passes it (what @actions/core's getBooleanInput accepts); empty is false. */
const flag = (name: string, empty = false) =>
  z
    .string()
    .trim()
    .transform((value, context) => {
      if (value === '') return empty;
      if (/^(false|False|FALSE)$/.test(value)) return false;
      if (/^(true|True|TRUE)$/.test(value)) return true;
      context.addIssue({ code: 'custom', message: `${name} must be true or false, got '${value}'` });
      return z.NEVER;
    });

const inputsSchema = z.object({
  provider: ruled(SETTING_RULES.provider),
  /** Empty: ANTHROPIC_API_KEY from the environment (see readSettings). */
  anthropic_api_key: text(),
  anthropic_base_url: text(),
  /** Keyless auth (Workload Identity Federation): the federation rule; set, it replaces the API key. */
  federation_rule_id: text(),
  organization_id: text(),
  service_account_id: text(),
  workspace_id: text(),
  /** The audience the job's OIDC token is asked for. */
  audience: text(DEFAULT_AUDIENCE),
  /** A JSON Schema for the run's final answer, or a path in the repository; read by readOutputSchemaSetting. */
  output_schema: text(),
  github_token: z.string().trim().min(1, 'github_token is required (the default is the workflow token)'),
  model: text(DEFAULT_MODEL),
  trigger: text('/agent').refine((value) => !/\s/.test(value), 'trigger must be one word, like /agent'),
  max_turns: ruled(wholeNumberRule('max_turns')),
  bash_timeout: ruled(wholeNumberRule('bash_timeout')),
  reminder_rounds: ruled(wholeNumberRule('reminder_rounds')),
  max_parallel_tasks: ruled(wholeNumberRule('max_parallel_tasks')),
  task_max_turns: ruled(wholeNumberRule('task_max_turns')),
  base_branch: text(),
  draft: flag('draft'),
  /** Commit through GitHub's API, which signs the commit (true when empty); false pushes with git. */
  signed_commits: flag('signed_commits', true),
  max_cost_usd: z
    .string()
    .trim()
    .transform((value, context) => {
      if (value === '') return DEFAULT_MAX_COST_USD;
      if (/^(0|none)$/i.test(value)) return undefined;
      const number = Number(value);
      if (!Number.isFinite(number) || number <= 0) {
        context.addIssue({
          code: 'custom',
          message: `max_cost_usd must be a positive number of dollars, or 0 (or none) for no limit, got '${value}'`,
        });
        return z.NEVER;
      }
      return number;
    }),
  max_context_tokens: optional(SETTING_RULES.max_context_tokens),
  effort: optional(SETTING_RULES.effort),
  compaction: ruled(SETTING_RULES.compaction),
  price_per_mtok: optional(SETTING_RULES.price_per_mtok),
  sandbox: ruled(SETTING_RULES.sandbox),
  /** How the work on a fork's pull request goes back: a review of it, or a pull request of our own. */
  fork_delivery: ruled(SETTING_RULES.fork_delivery),
  tool_network: ruled(SETTING_RULES.tool_network),
  /** More hosts for the network gate: one per line or comma-separated, `*.example.com`, `host:port`. */
  allowed_hosts: z.string().transform((value, context) => {
    const parsed = parseAllowedHosts(value);
    if ('rules' in parsed) return parsed.rules;
    context.addIssue({ code: 'custom', message: parsed.problem });
    return z.NEVER;
  }),
  verify_command: text(),
  verify_attempts: ruled(wholeNumberRule('verify_attempts')),
  /** The MCP servers' JSON, or a path in the repository; read by readMcpServersSetting with the environment. */
  mcp_servers: text(),
  mcp_timeout: ruled(wholeNumberRule('mcp_timeout')),
  /** An issue labeled with this runs its title and body as the task; empty is off. */
  label: text(),
  /** An issue assigned to this login runs likewise; empty is off. */
  assignee: text().refine((value) => !/\s/.test(value), 'assignee must be one login, like todo-agent-bot'),
  branch_prefix: text('agent/').refine(
    (value) => !/[\s~^:?*[\\]|\.\.|@\{/.test(value),
    'branch_prefix must be usable in a git branch name',
  ),
});

/** A runner variable that must be set; the message covers a missing one as well as an empty one. */
const required = (name: string) => {
  const message = `${name} is not set: is this running in GitHub Actions?`;
  return z.string({ error: message }).min(1, message);
};

const runnerSchema = z.object({
  GITHUB_REPOSITORY: required('GITHUB_REPOSITORY').regex(
    /^[^/\s]+\/[^/\s]+$/,
    'GITHUB_REPOSITORY must be owner/repo',
  ),
  GITHUB_EVENT_NAME: required('GITHUB_EVENT_NAME'),
  GITHUB_EVENT_PATH: required('GITHUB_EVENT_PATH'),
  GITHUB_RUN_ID: z.string().default('0'),
  GITHUB_SERVER_URL: z.string().default('https://github.com'),
  GITHUB_API_URL: z.string().default('https://api.github.com'),
  GITHUB_WORKSPACE: z.string().default(process.cwd()),
  RUNNER_TEMP: z
    .string()
    .default('')
    .transform((value) => value || tmpdir()),
});

export type Inputs = z.output<typeof inputsSchema>;

export interface Settings {
  inputs: Inputs;
  owner: string;
  repo: string;
  eventName: string;
  eventPath: string;
  runId: string;
  runUrl: string;
  serverUrl: string;
  apiUrl: string;
  workspace: string;
  /** The runner's temp folder for this job (RUNNER_TEMP): the run record goes there. */
  runnerTemp: string;
  /** The maintainer's MCP servers (`mcp_servers`): checked now when inline, read from the base branch when a path. */
  mcp?: McpServersSetting;
  /** Keyless auth to the Anthropic API, when `federation_rule_id` is set: no API key is used. */
  federation?: Federation;
  /** The final answer's JSON Schema (`output_schema`): inline, or a path read from the base branch. */
  outputSchema?: OutputSchemaSetting;
  /** Warnings for the log: a setting read under its old name. */
  notices: string[];
}

export class SettingsError extends Error {
  override name = 'SettingsError';
}

export const INPUT_NAMES = Object.keys(inputsSchema.shape) as (keyof Inputs)[];

export const MISSING_KEY =
  'no Anthropic API key: set the anthropic_api_key input (from a repository secret) or ANTHROPIC_API_KEY in the job’s env';

/** Reads `INPUT_*` (as the runner sets them) and the runner's `GITHUB_*` variables. */
export function readSettings(env: NodeJS.ProcessEnv = process.env): Settings {
  const raw = Object.fromEntries(INPUT_NAMES.map((name) => [name, env[`INPUT_${name.toUpperCase()}`] ?? '']));
  // An empty input falls back to the variable a job-level `env:` sets, as the SDK itself would.
  raw.anthropic_api_key ||= env.ANTHROPIC_API_KEY ?? '';
  // Only the Anthropic API takes ANTHROPIC_BASE_URL. Given to the Bedrock or Vertex SDK it would replace the
  // platform's endpoint, and each signed request (AWS session token, Google access token) would go there.
  if (chosenProvider(raw) === 'anthropic') raw.anthropic_base_url ||= env.ANTHROPIC_BASE_URL ?? '';
  const inputs = inputsSchema.safeParse(raw);
  const runner = runnerSchema.safeParse(env);
  const mcp = mcpSetting(raw.mcp_servers ?? '', env);
  const outputSchema = readOutputSchemaSetting(raw.output_schema ?? '');
  const problems = [
    ...credentialProblems(raw, env),
    ...('problem' in mcp ? [mcp.problem] : []),
    ...(outputSchema && 'problem' in outputSchema ? [outputSchema.problem] : []),
    ...(inputs.error?.issues ?? []).map((issue) => issue.message),
    ...(runner.error?.issues ?? []).map((issue) => issue.message),
  ];
  if (!inputs.success || !runner.success || problems.length > 0) throw new SettingsError(problems.join('; '));
  const context = runner.data;
  const [owner = '', repo = ''] = context.GITHUB_REPOSITORY.split('/');
  const serverUrl = context.GITHUB_SERVER_URL.replace(/\/+$/, '');
  return {
    inputs: inputs.data!,
    owner,
    repo,
    eventName: context.GITHUB_EVENT_NAME,
    eventPath: context.GITHUB_EVENT_PATH,
    runId: context.GITHUB_RUN_ID,
    runUrl: runUrl({ serverUrl, owner, repo }, context.GITHUB_RUN_ID),
    serverUrl,
    apiUrl: context.GITHUB_API_URL.replace(/\/+$/, ''),
    workspace: context.GITHUB_WORKSPACE,
    runnerTemp: context.RUNNER_TEMP,
    ...('setting' in mcp && mcp.setting ? { mcp: mcp.setting } : {}),
    ...federationOf(inputs.data!),
    ...(outputSchema && !('problem' in outputSchema) ? { outputSchema } : {}),
    notices: [deprecatedToolNetwork(raw.tool_network ?? ''), ignoredKey(raw)].filter(
      (notice) => notice !== undefined,
    ),
  };
}

/** The `mcp_servers` input read, or its problem as one sentence. */
function mcpSetting(
  value: string,
  env: NodeJS.ProcessEnv,
): { setting: McpServersSetting | undefined } | { problem: string } {
  try {
    return { setting: readMcpServersSetting(value, env) };
  } catch (error) {
    if (error instanceof McpConfigError) return { problem: error.message };
    throw error;
  }
}

/** The provider input as the schema reads it; undefined when it names none (the schema reports that). */
function chosenProvider(raw: Record<string, string>): Provider | undefined {
  return SETTING_RULES.provider.parse(raw.provider ?? '');
}

/** What the chosen provider lacks before any call: the Anthropic API key, or the platform's region and project. */
function credentialProblems(raw: Record<string, string>, env: NodeJS.ProcessEnv): string[] {
  const provider = chosenProvider(raw);
  if (provider === undefined) return []; // the provider input's own problem is reported
  const keyless = Boolean(raw.federation_rule_id?.trim());
  if (provider !== 'anthropic')
    return [
      providerProblem(provider, env),
      keyless ? `federation_rule_id is for provider anthropic, not ${provider}` : undefined,
    ].filter((problem) => problem !== undefined);
  if (keyless) return federationProblems(raw, env);
  if (raw.anthropic_api_key?.trim() || env.ANTHROPIC_API_KEY?.trim()) return [];
  return [MISSING_KEY];
}

/** The sentence for a job that may not ask GitHub for its OIDC token. */
export const NO_ID_TOKEN =
  'keyless auth needs the job’s OIDC token, and this job may not ask for one (ACTIONS_ID_TOKEN_REQUEST_URL is not set): add `permissions: id-token: write` to the job';

/** What keyless auth lacks: the names the token exchange needs, and the job's leave to ask for its OIDC token. */
function federationProblems(raw: Record<string, string>, env: NodeJS.ProcessEnv): string[] {
  return [
    raw.organization_id?.trim()
      ? undefined
      : 'keyless auth needs organization_id (the Anthropic organization’s UUID)',
    raw.service_account_id?.trim()
      ? undefined
      : 'keyless auth needs service_account_id (the svac_… service account the federation rule acts as)',
    env.ACTIONS_ID_TOKEN_REQUEST_URL?.trim() && env.ACTIONS_ID_TOKEN_REQUEST_TOKEN?.trim()
      ? undefined
      : NO_ID_TOKEN,
  ].filter((problem) => problem !== undefined);
}

function federationOf(inputs: Inputs): { federation?: Federation } {
  if (!inputs.federation_rule_id) return {};
  return {
    federation: {
      federationRuleId: inputs.federation_rule_id,
      organizationId: inputs.organization_id,
      ...(inputs.service_account_id ? { serviceAccountId: inputs.service_account_id } : {}),
      ...(inputs.workspace_id ? { workspaceId: inputs.workspace_id } : {}),
      audience: inputs.audience,
    },
  };
}

/** A key given beside keyless auth is not used: said once, in the log. */
function ignoredKey(raw: Record<string, string>): string | undefined {
  if (!raw.federation_rule_id?.trim() || !raw.anthropic_api_key?.trim()) return undefined;
  return 'federation_rule_id is set, so the Anthropic API key (anthropic_api_key or ANTHROPIC_API_KEY) is not used: the run authenticates with the job’s OIDC token';
}

/**
 * Every secret value in the environment, for masking and redaction: the key and token inputs, every ACTIONS_*
 * value (runtime tokens and the URLs they go with), and anything named like a credential. Each token also in
 * the base64 form git sends it in (`x-access-token:<token>`, as actions/checkout persists it). Plain settings
 * (model, trigger…) are not secrets: masking them would blank out ordinary words in comments and logs. No
 * INPUT_* reaches a tool either way. The secrets inside a Google credentials file count too (see sandbox/credential-files.ts).
 */
export function secretValues(env: NodeJS.ProcessEnv = process.env): string[] {
  const values = Object.entries(env)
    .filter(([name]) => name.toUpperCase().startsWith('ACTIONS_') || SECRET_NAME_PATTERN.test(name))
    .map(([, value]) => value?.trim() ?? '')
    .concat(credentialFileSecrets(env))
    .filter((value) => value.length >= 6);
  const encoded = values.map((value) => Buffer.from(`x-access-token:${value}`).toString('base64'));
  return [...new Set([...values, ...encoded])];
}
