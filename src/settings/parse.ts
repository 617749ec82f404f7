// The value rules the action's inputs and the CLI's flags share: each setting's parser, bounds, default and
// the sentence that says what is wrong with a bad value. Pure: strings in, values out.
import { EFFORTS, type Effort } from '../model/catalogue.js';
import { PROVIDERS, type Provider } from '../model/providers.js';
import {
  DEFAULT_BASH_TIMEOUT_SECONDS,
  DEFAULT_MAX_PARALLEL_TASKS,
  DEFAULT_MAX_TURNS,
  DEFAULT_TASK_MAX_TURNS,
} from '../agent/defaults.js';
import { DEFAULT_REMINDER_ROUNDS } from '../agent/todo/reminder.js';
import type { SandboxNetwork } from '../sandbox/namespaces.js';

/**
 * The numeric knobs the action and the CLI share: their defaults and upper bounds. The agent core's own
 * defaults are the ones it uses when given none, so the action, the CLI and the loop cannot drift apart.
 */
export const NUMBER_SETTINGS = {
  max_turns: { fallback: DEFAULT_MAX_TURNS, max: 1000 },
  bash_timeout: { fallback: DEFAULT_BASH_TIMEOUT_SECONDS, max: 3600 },
  reminder_rounds: { fallback: DEFAULT_REMINDER_ROUNDS, max: 100 },
  verify_attempts: { fallback: 3, max: 20 },
  /** Seconds an MCP server has to start, and to answer each tool call. */
  mcp_timeout: { fallback: 60, max: 3600 },
  /** Explore helpers side by side at most; 0 turns the task tool off. */
  max_parallel_tasks: { fallback: DEFAULT_MAX_PARALLEL_TASKS, max: 10, min: 0 },
  task_max_turns: { fallback: DEFAULT_TASK_MAX_TURNS, max: 1000 },
} as const satisfies Record<string, { fallback: number; max: number; min?: number }>;

export type NumberSetting = keyof typeof NUMBER_SETTINGS;

/** A whole number from `min` to `max`, digits only (Number() would also take '1e2', '0x10' and '1.0'). */
export function parseWholeNumber(value: string, max: number, min = 1): number | undefined {
  const number = /^\d+$/.test(value.trim()) ? Number(value.trim()) : NaN;
  return Number.isInteger(number) && number >= min && number <= max ? number : undefined;
}

/** A number setting's bounds: from 1 (or its own `min`) to its `max`. */
export function boundsOf(name: NumberSetting): { fallback: number; max: number; min: number } {
  const setting: { fallback: number; max: number; min?: number } = NUMBER_SETTINGS[name];
  return { fallback: setting.fallback, max: setting.max, min: setting.min ?? 1 };
}

/** `max_context_tokens`: a whole number of tokens, at least enough for one turn of tool output. */
export const CONTEXT_TOKENS = { min: 20_000, max: 10_000_000 } as const;

function parseContextTokens(value: string): number | undefined {
  const number = parseWholeNumber(value, CONTEXT_TOKENS.max);
  return number !== undefined && number >= CONTEXT_TOKENS.min ? number : undefined;
}

function parseEffort(value: string): Effort | undefined {
  return (EFFORTS as readonly string[]).includes(value.trim()) ? (value.trim() as Effort) : undefined;
}

/** `price_per_mtok`: "input,output", USD per million tokens, both positive. */
function parsePricePerMtok(value: string): { input: number; output: number } | undefined {
  const parts = value.split(',').map((part) => part.trim());
  const [input, output] = parts.map((part) => (/^\d+(\.\d+)?$/.test(part) ? Number(part) : NaN));
  if (parts.length !== 2 || !(input! > 0) || !(output! > 0)) return undefined;
  return { input: input!, output: output! };
}

/** The provider named, `anthropic` when none is. */
function parseProvider(value: string): Provider | undefined {
  const chosen = value.trim() || 'anthropic';
  return PROVIDERS.find((name) => name === chosen);
}

/** One of `values` (case-insensitive), `fallback` when empty. */
function oneOf<const T extends readonly [string, ...string[]]>(values: T, fallback: T[number]) {
  return (value: string): T[number] | undefined => {
    const chosen = value.trim().toLowerCase() || fallback;
    return values.find((name) => name === chosen);
  };
}

/** What the tools' commands reach: hosts of the allowlist (through the network gate), every host, or none. */
const TOOL_NETWORKS = ['allowlist', 'all', 'none'] as const;
export type ToolNetworkSetting = (typeof TOOL_NETWORKS)[number];

/** `tool_network`: `allowlist` when empty; `allow`, the name `all` had before the allowlist, is read as `all`. */
function parseToolNetwork(value: string): ToolNetworkSetting | undefined {
  const chosen = value.trim().toLowerCase();
  return chosen === 'allow' ? 'all' : oneOf(TOOL_NETWORKS, 'allowlist')(chosen);
}

/** The sandbox's network for each tool_network: gated by the allowlist, the host's own, or none. */
const SANDBOX_NETWORKS = {
  allowlist: 'gated',
  all: 'host',
  none: 'none',
} as const satisfies Record<ToolNetworkSetting, SandboxNetwork>;

/**
 * The tools' network as tool_network asks for it; undefined without a sandbox, where the tools reach every
 * host whatever tool_network says. The action, the CLI and the tools' runtime all ask this.
 */
export function toolsNetwork(setting: ToolNetworkSetting, sandboxed: boolean): SandboxNetwork | undefined {
  return sandboxed ? SANDBOX_NETWORKS[setting] : undefined;
}

/**
 * Whether the allowlist is on, decided here alone: a sandbox under `tool_network: allowlist`, whose network
 * the gate opens for (runtime/tool-runtime.ts), GitHub's package hosts join (action/prepare/prepare.ts), and
 * the model is told of.
 */
export function allowlistOn(setting: ToolNetworkSetting, sandboxed: boolean): boolean {
  return toolsNetwork(setting, sandboxed) === 'gated';
}

/** The warning a setting's old name gets; undefined for a current one. */
export function deprecatedToolNetwork(value: string): string | undefined {
  return value.trim().toLowerCase() === 'allow'
    ? 'tool_network: allow is the old name of tool_network: all (every host); it still works, but will go in a later version. The default is now allowlist.'
    : undefined;
}

/** A setting's parser (undefined for a bad value) and the sentence for a bad value. */
export interface Rule<T> {
  parse: (value: string) => T | undefined;
  problem: (value: string) => string;
}

const rule = <T>(parse: Rule<T>['parse'], problem: Rule<T>['problem']): Rule<T> => ({ parse, problem });

/** A whole-number setting: from 1 (or its own minimum) to its bound, its default when empty. */
export function wholeNumberRule(name: NumberSetting): Rule<number> {
  const { fallback, max, min } = boundsOf(name);
  return rule(
    (value) => (value.trim() === '' ? fallback : parseWholeNumber(value, max, min)),
    (value) => `${name} must be a whole number from ${min} to ${max}, got '${value}'`,
  );
}

/** The settings read the same way as an action input and as a CLI flag. */
export const SETTING_RULES = {
  provider: rule(parseProvider, (value) => `provider must be one of ${PROVIDERS.join(', ')}, got '${value}'`),
  max_context_tokens: rule(
    parseContextTokens,
    (value) =>
      `max_context_tokens must be a whole number of tokens from ${CONTEXT_TOKENS.min} to ${CONTEXT_TOKENS.max}, got '${value}'`,
  ),
  effort: rule(parseEffort, (value) => `effort must be one of ${EFFORTS.join(', ')}, got '${value}'`),
  price_per_mtok: rule(
    parsePricePerMtok,
    (value) =>
      `price_per_mtok must be two positive numbers of US dollars, "input,output" (like "3,15"), got '${value}'`,
  ),
  sandbox: rule(oneOf(['on', 'off'] as const, 'on'), (value) => `sandbox must be on or off, got '${value}'`),
  fork_delivery: rule(
    oneOf(['suggestions', 'pull-request'] as const, 'suggestions'),
    (value) => `fork_delivery must be suggestions or pull-request, got '${value}'`,
  ),
  compaction: rule(
    oneOf(['auto', 'off'] as const, 'auto'),
    (value) => `compaction must be auto or off, got '${value}'`,
  ),
  tool_network: rule(
    parseToolNetwork,
    (value) => `tool_network must be allowlist, all or none, got '${value}'`,
  ),
};

/** The audience keyless auth asks GitHub's OIDC token for when the workflow names none. */
export const DEFAULT_AUDIENCE = 'https://api.anthropic.com';
