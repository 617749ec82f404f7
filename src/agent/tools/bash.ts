// The bash tool: one shell command in the workspace, run by the sandbox module, with bounded output.
import { z } from 'zod';
import { runCommand, type CommandResult } from '../../sandbox/commands/run-command.js';
import type { Tool } from './types.js';
import { ToolError } from './types.js';

export {
  runCommand,
  type CommandResult,
  type RunCommandOptions,
} from '../../sandbox/commands/run-command.js';

/** A call without its own timeout gets this many seconds (or the ceiling, if that is lower). */
export const DEFAULT_CALL_SECONDS = 120;

/** Runs the command with pipefail, so a failure anywhere in a pipeline (`npm test | tail`) is its status. */
export const withPipefail = (command: string): string =>
  `(set -o pipefail) 2>/dev/null && set -o pipefail; ${command}`;

export function describeResult(result: CommandResult, timeoutSeconds: number, timeoutHint = ''): string {
  const status = result.timedOut
    ? `timed out after ${timeoutSeconds} s; process group killed${timeoutHint}`
    : result.aborted
      ? 'aborted (the run was cancelled); process group killed'
      : result.exitCode !== null
        ? `exit code: ${result.exitCode}`
        : `killed by signal ${result.signal ?? 'unknown'}`;
  return `${status}\n${result.output.length > 0 ? result.output : '(no output)'}`;
}

/** The command's status and output for the model, and its exit code for the observers (null: killed). */
export interface BashAnswer {
  text: string;
  exitCode: number | null;
}

/** The exit code `describeResult` reports; null for a command that was killed (a timeout, a cancel, a signal). */
const exitCodeOf = (result: CommandResult): number | null =>
  result.timedOut || result.aborted ? null : result.exitCode;

/** The bash tool for a run whose calls may last at most `maxSeconds` (the bash_timeout setting). */
export function createBashTool(maxSeconds: number) {
  const defaultSeconds = Math.min(DEFAULT_CALL_SECONDS, maxSeconds);
  const input = z.object({
    command: z
      .string()
      .describe('The command, run with bash -c in the repository root, e.g. "npm test 2>&1 | tail -n 60"'),
    timeout: z
      .number()
      .int()
      .positive()
      .max(
        maxSeconds,
        `at most ${maxSeconds} seconds (this run's bash_timeout); split the work into smaller steps`,
      )
      .optional()
      .describe(`Seconds before the command is killed (default ${defaultSeconds}, at most ${maxSeconds})`),
  });
  const tool: Tool<typeof input, BashAnswer> = {
    name: 'bash',
    description:
      'Run a shell command with bash -c in the repository root and return its exit code and output ' +
      '(stdout and stderr merged). Non-interactive: stdin is closed, no terminal, no credentials. Each ' +
      'call starts a fresh shell (cd and exports do not carry over). pipefail is on, so a pipeline fails ' +
      'when any part fails. Outputs over about 50,000 characters are cut to their first and last parts; ' +
      'trim long output yourself and keep the end, where errors are: `npm test 2>&1 | tail -n 60`, ' +
      '`grep -n pattern file | head -n 40`. To search the repository use `git grep -n pattern` (tracked files ' +
      'only, so no node_modules or build output) and to list its files `git ls-files`. A command is killed with all its children after ' +
      `${defaultSeconds} s, or after timeout seconds if you pass one (at most ${maxSeconds} s): pass a ` +
      'larger timeout for installs, builds and full test suites. Background processes are killed when ' +
      'the command ends. Independent commands can go in parallel calls in one reply.',
    inputSchema: input,
    async run({ command, timeout }, context) {
      if (command.trim() === '') throw new ToolError('command is empty');
      const ceiling = context.bashTimeoutSeconds;
      if (timeout !== undefined && timeout > ceiling) {
        throw new ToolError(
          `timeout ${timeout} is over this run's ceiling of ${ceiling} s (bash_timeout); ` +
            'use a smaller timeout, or split the work into smaller steps',
        );
      }
      const seconds = timeout ?? Math.min(DEFAULT_CALL_SECONDS, ceiling);
      const result = await runCommand(withPipefail(command), {
        cwd: context.workspace,
        env: context.env,
        timeoutMs: seconds * 1000,
        ...(context.signal ? { signal: context.signal } : {}),
        ...(context.sandbox ? { sandbox: context.sandbox } : {}),
        ...(context.redaction ? { redaction: context.redaction } : {}),
      });
      const hint =
        seconds < ceiling
          ? `. Run it again with a larger timeout (up to ${ceiling}), or in smaller steps`
          : '. That is the most this run allows (bash_timeout): run it in smaller steps (one package, one test file)';
      return { text: describeResult(result, seconds, hint), exitCode: exitCodeOf(result) };
    },
  };
  return tool;
}
