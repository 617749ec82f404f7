// The action's inputs and runner context, read and validated once into one typed settings object.
import { z } from 'zod';
import { SECRET_NAME_PATTERN } from './agent/child-env.js';
import { DEFAULT_MODEL } from './agent/model.js';

/** The numeric knobs the action and the CLI share: their defaults and upper bounds. */
export const NUMBER_SETTINGS = {
  max_turns: { fallback: 60, max: 1000 },
  bash_timeout: { fallback: 120, max: 3600 },
  reminder_rounds: { fallback: 3, max: 100 },
} as const;

/** A whole number from 1 to `max`, digits only (Number() would also take '1e2', '0x10' and '1.0'). */
export function parseWholeNumber(value: string, max: number): number | undefined {
  const number = /^\d+$/.test(value.trim()) ? Number(value.trim()) : NaN;
  return Number.isInteger(number) && number >= 1 && number <= max ? number : undefined;
}

const wholeNumber = (name: keyof typeof NUMBER_SETTINGS) =>
  z
    .string()
    .trim()
    .transform((value, context) => {
      const { fallback, max } = NUMBER_SETTINGS[name];
      if (value === '') return fallback;
      const number = parseWholeNumber(value, max);
      if (number === undefined) {
        context.addIssue({
          code: 'custom',
          message: `${name} must be a whole number from 1 to ${max}, got '${value}'`,
        });
        return z.NEVER;
      }
      return number;
    });

const text = (fallback = '') =>
  z
    .string()
    .trim()
    .transform((value) => value || fallback);

/** A YAML 1.2 boolean as the runner passes it (what @actions/core's getBooleanInput accepts); empty is false. */
const flag = (name: string) =>
  z
    .string()
    .trim()
    .transform((value, context) => {
      if (value === '' || /^(false|False|FALSE)$/.test(value)) return false;
      if (/^(true|True|TRUE)$/.test(value)) return true;
      context.addIssue({ code: 'custom', message: `${name} must be true or false, got '${value}'` });
      return z.NEVER;
    });

const inputsSchema = z.object({
  anthropic_api_key: z
    .string()
    .trim()
    .min(1, 'anthropic_api_key is required (store the key as a repository secret)'),
  anthropic_base_url: text(),
  github_token: z.string().trim().min(1, 'github_token is required (the default is the workflow token)'),
  model: text(DEFAULT_MODEL),
  trigger: text('/agent').refine((value) => !/\s/.test(value), 'trigger must be one word, like /agent'),
  max_turns: wholeNumber('max_turns'),
  bash_timeout: wholeNumber('bash_timeout'),
  reminder_rounds: wholeNumber('reminder_rounds'),
  base_branch: text(),
  draft: flag('draft'),
  max_cost_usd: z
    .string()
    .trim()
    .transform((value, context) => {
      if (value === '') return undefined;
      const number = Number(value);
      if (!Number.isFinite(number) || number <= 0) {
        context.addIssue({
          code: 'custom',
          message: `max_cost_usd must be a positive number of dollars, got '${value}'`,
        });
        return z.NEVER;
      }
      return number;
    }),
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
}

export class SettingsError extends Error {
  override name = 'SettingsError';
}

export const INPUT_NAMES = Object.keys(inputsSchema.shape) as (keyof Inputs)[];

/** Reads `INPUT_*` (as the runner sets them) and the runner's `GITHUB_*` variables. */
export function readSettings(env: NodeJS.ProcessEnv = process.env): Settings {
  const raw = Object.fromEntries(INPUT_NAMES.map((name) => [name, env[`INPUT_${name.toUpperCase()}`] ?? '']));
  const inputs = inputsSchema.safeParse(raw);
  const runner = runnerSchema.safeParse(env);
  const problems = [...(inputs.error?.issues ?? []), ...(runner.error?.issues ?? [])].map(
    (issue) => issue.message,
  );
  if (!inputs.success || !runner.success) throw new SettingsError(problems.join('; '));
  const context = runner.data;
  const [owner = '', repo = ''] = context.GITHUB_REPOSITORY.split('/');
  const serverUrl = context.GITHUB_SERVER_URL.replace(/\/+$/, '');
  return {
    inputs: inputs.data,
    owner,
    repo,
    eventName: context.GITHUB_EVENT_NAME,
    eventPath: context.GITHUB_EVENT_PATH,
    runId: context.GITHUB_RUN_ID,
    runUrl: `${serverUrl}/${owner}/${repo}/actions/runs/${context.GITHUB_RUN_ID}`,
    serverUrl,
    apiUrl: context.GITHUB_API_URL.replace(/\/+$/, ''),
    workspace: context.GITHUB_WORKSPACE,
  };
}

/**
 * Every secret value in the environment, for masking and redaction: the key and token inputs, every ACTIONS_*
 * value (runtime tokens and the URLs they go with), and anything named like a credential. Each token also in
 * the base64 form git sends it in (`x-access-token:<token>`, as actions/checkout persists it). Plain settings
 * (model, trigger…) are not secrets: masking them would blank out ordinary words in comments and logs. No
 * INPUT_* reaches a tool either way.
 */
export function secretValues(env: NodeJS.ProcessEnv = process.env): string[] {
  const values = Object.entries(env)
    .filter(([name]) => name.toUpperCase().startsWith('ACTIONS_') || SECRET_NAME_PATTERN.test(name))
    .map(([, value]) => value?.trim() ?? '')
    .filter((value) => value.length >= 6);
  const encoded = values.map((value) => Buffer.from(`x-access-token:${value}`).toString('base64'));
  return [...new Set([...values, ...encoded])];
}
