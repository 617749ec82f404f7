// The toolbox: the six built-in tools' definitions for the model, those from outside (MCP servers) beside
// them, and one safe way to run a tool call.
import { z } from 'zod';
import {
  TOOL_SEARCH,
  type ContentBlockParam,
  type ToolDefinition,
  type ToolParam,
} from '../../model/messages.js';
import { LateTools } from './late.js';
import type { TodoManager } from '../todo/todos.js';
import { createBashTool } from './bash.js';
import { editFileTool } from './edit-file.js';
import { githubTool } from './github.js';
import { withImages } from './image-file.js';
import { readFileTool } from './read-file.js';
import { writeFileTool } from './write-file.js';
import { todoTool } from './todo.js';
import type { OutsideTool, OutsideTools, RepositoryReader, Tool, ToolAnswer, ToolContext } from './types.js';
import type { FittedImage } from '../../images/fit.js';
import { errorMessage } from '../../text/error-sentence.js';

export interface ToolOutcome {
  output: string;
  isError: boolean;
  /** A command's exit code, for a tool that runs one (null: killed); absent otherwise. */
  exitCode?: number | null;
  /** Pictures the tool showed (read_file of an image), sent after its text. */
  images?: readonly FittedImage[];
}

/**
 * Past this many tools, the tools from outside are deferred behind the API's tool search (where the model has
 * it): the tool search guide finds that choosing gets worse past 30 to 50 tools, and a deferred tool stays out
 * of the cached prefix until the model looks it up.
 */
export const DEFER_OVER_TOOLS = 30;

export class Toolbox {
  readonly #tools: Map<string, Tool<z.ZodType, ToolAnswer>>;
  readonly #refusal: OutsideTools['refusal'];
  readonly #defer: boolean;
  readonly #readOnly: boolean;
  readonly #late: LateTools;
  /** Every tool as the model is shown it (the deferred ones marked so). */
  readonly definitions: ToolDefinition[];
  /** What each request's `tools` holds: the definitions, and the tool search when some are deferred. */
  requestTools: readonly ToolParam[];

  constructor(
    tools: ReadonlyArray<Tool<z.ZodType, ToolAnswer>>,
    outside?: OutsideTools,
    {
      toolSearch = false,
      readOnly = false,
      joined = (text) => ({ type: 'text', text }),
    }: {
      toolSearch?: boolean;
      /** Only the tools from outside marked read-only are offered (a plan run). */
      readOnly?: boolean;
      /** The note for the model that tools joined (tools/late.ts), as the run tells it. */
      joined?: (note: string) => ContentBlockParam;
    } = {},
  ) {
    this.#tools = new Map(tools.map((tool) => [tool.name, tool]));
    this.#refusal = outside?.refusal?.bind(outside);
    this.#readOnly = readOnly;
    // Tools that come while the run goes are always deferred: the prefix (the tools not deferred, the system
    // prompt) must not change when they join, and the tool search is there from the first request.
    this.#defer =
      toolSearch &&
      (outside?.starting !== undefined ||
        tools.length + offered(outside?.tools ?? [], readOnly).length > DEFER_OVER_TOOLS);
    this.definitions = tools.map((tool) => ({
      name: tool.name,
      description: tool.description,
      input_schema: toInputSchema(tool.inputSchema),
    }));
    this.requestTools = this.definitions;
    this.addOutside(outside?.tools ?? []);
    this.#late = new LateTools(outside, (tools) => this.addOutside(tools), joined);
  }

  /** `blocks`, then the note of the tools from outside that joined since the last look, when some did. */
  withJoined(blocks: ContentBlockParam[]): ContentBlockParam[] {
    return [...blocks, ...this.#late.take()];
  }

  /** Whether the tools from outside wait behind the tool search. */
  get deferred(): boolean {
    return this.#defer;
  }

  /** Adds tools from outside (deferred, in a toolbox that defers them), from the next request on. */
  addOutside(tools: readonly OutsideTool[]): void {
    for (const tool of offered(tools, this.#readOnly)) {
      this.#tools.set(tool.name, outsideTool(tool));
      this.definitions.push({
        name: tool.name,
        description: tool.description,
        input_schema: tool.inputSchema,
        ...(this.#defer ? { defer_loading: true as const } : {}),
      });
    }
    this.requestTools = this.#defer ? [...this.definitions, TOOL_SEARCH] : [...this.definitions];
  }

  /** Runs one tool call. Never throws: any failure becomes an error result the model can act on. */
  async run(name: string, raw: unknown, context: ToolContext): Promise<ToolOutcome> {
    const tool = this.#tools.get(name);
    if (!tool) {
      const refusal = this.#refusal?.(name);
      if (refusal) return { output: refusal, isError: true };
      const names = [...this.#tools.keys()];
      const shown = names.length > 40 ? [...names.slice(0, 40), `and ${names.length - 40} more`] : names;
      return { output: `unknown tool '${name}'; available tools: ${shown.join(', ')}`, isError: true };
    }
    try {
      const input = parseInput(tool, raw);
      const answer = await tool.run(input, context);
      if (typeof answer === 'string') return { output: answer, isError: false };
      const { text, images, exitCode } = answer;
      return {
        output: text,
        isError: false,
        ...(exitCode === undefined ? {} : { exitCode }),
        ...(images === undefined ? {} : { images }),
      };
    } catch (error) {
      return { output: `${name} failed: ${errorMessage(error)}`, isError: true };
    }
  }
}

/**
 * The six built-in tools (github only with a reader), and the task tool when given; `bashTimeoutSeconds` is the
 * most any bash call may last.
 * `readOnly` (a plan-only run) leaves out the tools that write files, and the tools from outside that are
 * not marked read-only; `github` adds the github tool; `outside` adds an MCP server's tools, deferred behind
 * the tool search when there are many and the model has it (`toolSearch`).
 */
export function createToolbox(
  todos: TodoManager,
  bashTimeoutSeconds: number,
  {
    readOnly = false,
    bash = true,
    github,
    outside,
    toolSearch = false,
    task,
    joined,
  }: {
    readOnly?: boolean;
    /** false: no bash tool (an explore helper without a sandbox to run commands read-only). */
    bash?: boolean;
    github?: RepositoryReader;
    outside?: OutsideTools;
    toolSearch?: boolean;
    /** The task tool, for a run that may start helpers (helpers/). */
    task?: Tool<z.ZodType, ToolAnswer>;
    /** The note that tools from outside joined, as the run tells it (tools/late.ts). */
    joined?: (note: string) => ContentBlockParam;
  } = {},
): Toolbox {
  const shell = bash ? [createBashTool(bashTimeoutSeconds)] : [];
  const writers = readOnly ? [] : [writeFileTool, editFileTool];
  const reader = github ? [githubTool(github)] : [];
  return new Toolbox(
    [
      ...shell,
      withImages(readFileTool),
      ...writers,
      ...reader,
      todoTool(todos),
      ...(task ? [task] : []),
    ] as Array<Tool<z.ZodType, ToolAnswer>>,
    outside,
    { toolSearch, readOnly, ...(joined ? { joined } : {}) },
  );
}

/** The tools from outside a run may offer: the read-only ones only, for a plan. */
function offered(tools: readonly OutsideTool[], readOnly: boolean): readonly OutsideTool[] {
  return readOnly ? tools.filter((tool) => tool.readOnly) : tools;
}

/** An outside tool in the toolbox's shape: its input goes to the server as the model wrote it. */
function outsideTool(tool: OutsideTool): Tool<z.ZodType, ToolAnswer> {
  return {
    name: tool.name,
    description: tool.description,
    inputSchema: z.unknown(),
    parse: (raw) => raw,
    run: (input, context) => tool.run(input, context),
  };
}

function parseInput(tool: Tool<z.ZodType, ToolAnswer>, raw: unknown): unknown {
  if (tool.parse) return tool.parse(raw);
  const parsed = tool.inputSchema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((issue) => {
    const where = issue.path.length > 0 ? issue.path.join('.') : 'input';
    return `${where}: ${issue.message}`;
  });
  throw new Error(`invalid input: ${problems.join('; ')}`);
}

function toInputSchema(schema: z.ZodType): ToolDefinition['input_schema'] {
  const { $schema: _ignored, ...json } = z.toJSONSchema(schema) as Record<string, unknown>;
  if (json.type !== 'object') throw new TypeError('a tool input schema must be an object');
  return json as ToolDefinition['input_schema'];
}
