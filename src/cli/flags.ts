// The CLI's flags read by the action's own rules: the same values, bounds and defaults as its inputs, each
// problem worded with the flag's name.
import type { SETTING_RULES } from '../settings/parse.js';
import { boundsOf, parseWholeNumber, type NumberSetting, type Rule } from '../settings/parse.js';

/** Bad usage: the CLI prints it with the usage and exits 2. */
export class UsageError extends Error {}

/** The same numbers, bounds and defaults as the action's inputs. */
export function wholeNumber(flag: string, value: string | undefined, setting: NumberSetting): number {
  const { fallback, max, min } = boundsOf(setting);
  if (value === undefined) return fallback;
  const number = parseWholeNumber(value, max, min);
  if (number === undefined)
    throw new UsageError(
      `--${flag} must be ${min === 1 ? `a positive whole number up to ${max}` : `a whole number from ${min} to ${max}`}, got '${value}'`,
    );
  return number;
}

/** A flag read by its action input's rule, its problem worded with the flag's name. */
export function ruled<T>(value: string, setting: keyof typeof SETTING_RULES, rule: Rule<T>): T {
  const parsed = rule.parse(value);
  if (parsed === undefined)
    throw new UsageError(rule.problem(value).replace(setting, `--${setting.replaceAll('_', '-')}`));
  return parsed;
}

/** An optional flag, parsed and worded as its action input is. */
export function optional<T>(
  value: string | undefined,
  setting: keyof typeof SETTING_RULES,
  rule: Rule<T>,
): T | undefined {
  return value === undefined ? undefined : ruled(value, setting, rule);
}
