// The shape every tool has. A tool throws ToolError (or any Error) to report a failure to the model.
import type { z } from 'zod';
import type { FittedImage } from '../../images/fit.js';
import type { Redaction } from '../../sandbox/commands/capped-output.js';
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

export interface Tool<Schema extends z.ZodType = z.ZodType, Answer extends ToolAnswer = string> {
  name: string;
  description: string;
  inputSchema: Schema;
  /** Optional own parsing of the raw input (default: inputSchema); throw to refuse it. */
  parse?: (raw: unknown) => z.infer<Schema>;
  run(input: z.infer<Schema>, context: ToolContext): Promise<Answer>;
}

/**
 * What a tool answers: text, or text with what goes beside it: the pictures the model is shown (read_file of
 * a PNG), or the exit code of the command it ran (bash; null: killed), for the observers.
 */
export type ToolAnswer = string | { text: string; images?: readonly FittedImage[]; exitCode?: number | null };

/** The github tool's question: what to read, and about which issue, pull request, ref, job or query. */
export interface GitHubQuestion {
  what: 'issue' | 'pull' | 'pull_files' | 'checks' | 'job_log' | 'search';
  number?: number | undefined;
  ref?: string | undefined;
  job_id?: number | undefined;
  query?: string | undefined;
  page?: number | undefined;
}

/**
 * Reads this repository on GitHub for the github tool. The wiring gives one that runs in the action's own
 * process, with its own client: the token stays there, and the agent core never imports GitHub.
 */
export interface RepositoryReader {
  answer(question: GitHubQuestion, signal?: AbortSignal): Promise<string>;
}

/** A failure the model can act on; its message is sent back as an error tool_result. */
export class ToolError extends Error {
  override name = 'ToolError';
}

/**
 * A tool from outside the action (an MCP server's): its schema is the server's JSON Schema as it is, its input
 * is checked by the server, and it reaches the model beside the built-in tools under its own name.
 */
export interface OutsideTool {
  name: string;
  description: string;
  inputSchema: { type: 'object'; [key: string]: unknown };
  /** Offered to plan runs too: the maintainer marked it read-only (or the server did, and was trusted to). */
  readOnly: boolean;
  run(input: unknown, context: ToolContext): Promise<ToolAnswer>;
}

/** The tools from outside, with what the model is told of where they come from. */
export interface OutsideTools {
  tools: readonly OutsideTool[];
  /** One line per server for the system prompt: its name and its tools, or why it is not available. */
  servers: readonly string[];
  /** Why a tool name that is not offered was refused, when it names one of these servers' tools. */
  refusal?(name: string): string | undefined;
  /**
   * Set when the tools come while the run goes (tools/late.ts): `tools` and `servers` grow as each server is
   * up or has failed; `names` are all the servers, `settled` once every one is up or has failed.
   */
  starting?: { names: readonly string[]; settled: Promise<void> };
}
