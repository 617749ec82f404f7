// The CLI's flags read by the action's own rules (src/cli/flags.ts), their problems worded with the flag.
import { describe, expect, it } from 'vitest';
import { optional, ruled, UsageError, wholeNumber } from '../../src/cli/flags.js';
import { boundsOf, SETTING_RULES } from '../../src/settings/parse.js';

describe('wholeNumber', () => {
  it("takes the input's default when the flag is absent, and its bounds when it is given", () => {
    expect(wholeNumber('max-turns', undefined, 'max_turns')).toBe(boundsOf('max_turns').fallback);
    expect(wholeNumber('max-turns', '12', 'max_turns')).toBe(12);
    expect(() => wholeNumber('max-turns', '1e2', 'max_turns')).toThrow(
      new UsageError(
        `--max-turns must be a positive whole number up to ${boundsOf('max_turns').max}, got '1e2'`,
      ),
    );
    expect(wholeNumber('max-parallel-tasks', '0', 'max_parallel_tasks')).toBe(0);
    expect(() => wholeNumber('max-parallel-tasks', '-1', 'max_parallel_tasks')).toThrow(
      /^--max-parallel-tasks must be a whole number from 0 to \d+, got '-1'$/,
    );
  });
});

describe('ruled and optional', () => {
  it("parses by the input's rule, and names the flag, not the input, in the problem", () => {
    expect(ruled('off', 'sandbox', SETTING_RULES.sandbox)).toBe('off');
    expect(() => ruled('maybe', 'tool_network', SETTING_RULES.tool_network)).toThrow(
      "--tool-network must be allowlist, all or none, got 'maybe'",
    );
    expect(optional(undefined, 'sandbox', SETTING_RULES.sandbox)).toBeUndefined();
    expect(() => optional('sometimes', 'sandbox', SETTING_RULES.sandbox)).toThrow(UsageError);
  });
});
