// The shape every tool has. A tool throws ToolError (or any Error) to report a failure to the model.
import type { z } from 'zod';
import type { Redaction } from '../../sandbox/capped-output.js';
import type { Sandbox } from '../../sandbox/namespaces.js';

export interface ToolContext {
  /** Absolute, symlink-resolved path of the workspace root. */
  workspace: string;
  /** Seconds before a bash command's whole process group is killed. */
  bashTimeoutSeconds: number;
  /** Environment for child processes, already free of secrets. */
  env: NodeJS.ProcessEnv;
  /** Where commands run; absent only when the sandbox is turned off or cannot be built (the CLI says so). */
  sandbox?: Sandbox;
  /** Masks secrets in command output, across its cuts; absent, output is not redacted here. */
  redaction?: Redaction;
  /** Aborted when the run is cancelled. */
  signal?: AbortSignal;
  /** Files the file tools refuse (a credentials file a login step left in the workspace). */
  hidden?: readonly string[];
}

export interface Tool<Schema extends z.ZodType = z.ZodType> {
  name: string;
  description: string;
  inputSchema: Schema;
  /** Optional own parsing of the raw input (default: inputSchema); throw to refuse it. */
  parse?: (raw: unknown) => z.infer<Schema>;
  run(input: z.infer<Schema>, context: ToolContext): Promise<string>;
  /** For a tool that runs a command: its exit code, read from the output `run` gave (null: killed). */
  exitCode?: (output: string) => number | null;
}

/** A failure the model can act on; its message is sent back as an error tool_result. */
export class ToolError extends Error {
  override name = 'ToolError';
}
