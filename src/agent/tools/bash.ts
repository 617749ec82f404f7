// The bash tool: one shell command in the workspace, run by the sandbox module, with bounded output.
import { z } from 'zod';
import { runCommand, type CommandResult } from '../sandbox.js';
import type { Tool } from './types.js';
import { ToolError } from './types.js';

export { runCommand, type CommandResult, type RunCommandOptions } from '../sandbox.js';

export function describeResult(result: CommandResult, timeoutSeconds: number): string {
  const status = result.timedOut
    ? `timed out after ${timeoutSeconds} s; process group killed`
    : result.aborted
      ? 'aborted (the run was cancelled); process group killed'
      : result.exitCode !== null
        ? `exit code: ${result.exitCode}`
        : `killed by signal ${result.signal ?? 'unknown'}`;
  return `${status}\n${result.output.length > 0 ? result.output : '(no output)'}`;
}

const bashInput = z.object({
  command: z
    .string()
    .describe('The shell command to run with bash -c in the workspace root, e.g. "npm test 2>&1 | tail -50"'),
});

export const bashTool: Tool<typeof bashInput> = {
  name: 'bash',
  description:
    'Run a shell command with bash -c in the repository root and return its exit code and output ' +
    '(stdout and stderr merged). Non-interactive: stdin is closed, no terminal, no credentials. ' +
    'Each call starts a fresh shell (cd and exports do not carry over). Long outputs are cut to their ' +
    'first and last parts; commands that run past the timeout are killed with all their children, and ' +
    'background processes are killed when the command ends. Use it for git, tests, builds, grep, ls.',
  inputSchema: bashInput,
  async run(input, context) {
    if (input.command.trim() === '') throw new ToolError('command is empty');
    const result = await runCommand(input.command, {
      cwd: context.workspace,
      env: context.env,
      timeoutMs: context.bashTimeoutSeconds * 1000,
      signal: context.signal,
      ...(context.sandbox ? { sandbox: context.sandbox } : {}),
    });
    return describeResult(result, context.bashTimeoutSeconds);
  },
};
