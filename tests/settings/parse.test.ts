// The value rules the action's inputs and the CLI's flags share: each setting's bounds and default, and the
// sentence a bad value gets.
import { describe, expect, it } from 'vitest';
import {
  allowlistOn,
  boundsOf,
  CONTEXT_TOKENS,
  deprecatedToolNetwork,
  parseWholeNumber,
  SETTING_RULES,
  toolsNetwork,
  wholeNumberRule,
} from '../../src/settings/parse.js';

/** What a rule makes of `value`: the value, or the sentence it gives a bad one. */
const read = <T>(
  rule: { parse: (v: string) => T | undefined; problem: (v: string) => string },
  value: string,
) => rule.parse(value) ?? rule.problem(value);

describe('whole numbers', () => {
  it('takes digits only, within the bounds', () => {
    expect(parseWholeNumber(' 42 ', 100)).toBe(42);
    expect(parseWholeNumber('100', 100)).toBe(100);
    expect(parseWholeNumber('0', 100, 0)).toBe(0);
    for (const bad of ['0', '101', '1e2', '0x10', '1.0', '-1', '', 'ten'])
      expect(parseWholeNumber(bad, 100), bad).toBeUndefined();
  });

  it('gives each number setting its default when empty, and names its bounds when out of them', () => {
    const turns = wholeNumberRule('max_turns');
    expect(turns.parse('')).toBe(boundsOf('max_turns').fallback);
    expect(turns.parse('7')).toBe(7);
    expect(read(turns, '1001')).toBe("max_turns must be a whole number from 1 to 1000, got '1001'");
    // max_parallel_tasks alone may be 0 (the task tool off).
    expect(boundsOf('max_parallel_tasks').min).toBe(0);
    expect(wholeNumberRule('max_parallel_tasks').parse('0')).toBe(0);
    expect(wholeNumberRule('verify_attempts').parse('0')).toBeUndefined();
  });
});

describe('SETTING_RULES', () => {
  it('reads the choices case-insensitively, with their defaults when empty', () => {
    expect(SETTING_RULES.sandbox.parse('')).toBe('on');
    expect(SETTING_RULES.sandbox.parse('OFF')).toBe('off');
    expect(SETTING_RULES.fork_delivery.parse('')).toBe('suggestions');
    expect(SETTING_RULES.compaction.parse(' Off ')).toBe('off');
    expect(SETTING_RULES.provider.parse('')).toBe('anthropic');
    expect(SETTING_RULES.provider.parse('vertex')).toBe('vertex');
    expect(SETTING_RULES.effort.parse(' high ')).toBe('high');
    expect(read(SETTING_RULES.sandbox, 'maybe')).toBe("sandbox must be on or off, got 'maybe'");
    expect(read(SETTING_RULES.provider, 'openai')).toMatch(
      /^provider must be one of anthropic, .*, got 'openai'$/,
    );
  });

  it('reads a price as two positive numbers of dollars', () => {
    expect(SETTING_RULES.price_per_mtok.parse(' 3, 15.5 ')).toEqual({ input: 3, output: 15.5 });
    for (const bad of ['3', '3,15,1', '0,15', '3,-1', 'a,b', '3,'])
      expect(SETTING_RULES.price_per_mtok.parse(bad), bad).toBeUndefined();
  });

  it('takes a context window of at least one turn of tool output', () => {
    expect(SETTING_RULES.max_context_tokens.parse(String(CONTEXT_TOKENS.min))).toBe(CONTEXT_TOKENS.min);
    expect(SETTING_RULES.max_context_tokens.parse(String(CONTEXT_TOKENS.min - 1))).toBeUndefined();
    expect(SETTING_RULES.max_context_tokens.parse(String(CONTEXT_TOKENS.max + 1))).toBeUndefined();
  });

  it("reads tool_network's old name as all, with a warning", () => {
    expect(SETTING_RULES.tool_network.parse('')).toBe('allowlist');
    expect(SETTING_RULES.tool_network.parse('Allow')).toBe('all');
    expect(SETTING_RULES.tool_network.parse('none')).toBe('none');
    expect(SETTING_RULES.tool_network.parse('some')).toBeUndefined();
    expect(deprecatedToolNetwork(' allow ')).toContain('old name of tool_network: all');
    expect(deprecatedToolNetwork('all')).toBeUndefined();
  });

  it("maps each choice to the sandbox's network, none without a sandbox, and decides there whether the allowlist is on", () => {
    const choices = ['allowlist', 'all', 'none'] as const;
    expect(choices.map((choice) => toolsNetwork(choice, true))).toEqual(['gated', 'host', 'none']);
    expect(choices.map((choice) => toolsNetwork(choice, false))).toEqual([undefined, undefined, undefined]);
    expect(choices.map((choice) => allowlistOn(choice, true))).toEqual([true, false, false]);
    expect(choices.map((choice) => allowlistOn(choice, false))).toEqual([false, false, false]);
  });
});
