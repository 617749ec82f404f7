// The toolbox: the six tools' definitions for the model, and one safe way to run a tool call.
import { z } from 'zod';
import type { ToolDefinition } from '../../model/messages.js';
import type { TodoManager } from '../todo/todos.js';
import { createBashTool } from './bash.js';
import { editFileTool } from './edit-file.js';
import { githubTool } from './github.js';
import { withImages } from './image-file.js';
import { readFileTool } from './read-file.js';
import { writeFileTool } from './write-file.js';
import { todoTool } from './todo.js';
import type { RepositoryReader, Tool, ToolAnswer, ToolContext } from './types.js';
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

export class Toolbox {
  readonly #tools: Map<string, Tool<z.ZodType, ToolAnswer>>;
  readonly definitions: ToolDefinition[];

  constructor(tools: ReadonlyArray<Tool<z.ZodType, ToolAnswer>>) {
    this.#tools = new Map(tools.map((tool) => [tool.name, tool]));
    this.definitions = tools.map((tool) => ({
      name: tool.name,
      description: tool.description,
      input_schema: toInputSchema(tool.inputSchema),
    }));
  }

  /** Runs one tool call. Never throws: any failure becomes an error result the model can act on. */
  async run(name: string, raw: unknown, context: ToolContext): Promise<ToolOutcome> {
    const tool = this.#tools.get(name);
    if (!tool) {
      return {
        output: `unknown tool '${name}'; available tools: ${[...this.#tools.keys()].join(', ')}`,
        isError: true,
      };
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
 * The six tools (github only with a reader); `bashTimeoutSeconds` is the most any bash call may last.
 * `readOnly` (a plan-only run) leaves out the tools that write files; `github` adds the github tool.
 */
export function createToolbox(
  todos: TodoManager,
  bashTimeoutSeconds: number,
  { readOnly = false, github }: { readOnly?: boolean; github?: RepositoryReader } = {},
): Toolbox {
  const bash = createBashTool(bashTimeoutSeconds);
  const writers = readOnly ? [] : [writeFileTool, editFileTool];
  const reader = github ? [githubTool(github)] : [];
  return new Toolbox([bash, withImages(readFileTool), ...writers, ...reader, todoTool(todos)] as Array<
    Tool<z.ZodType, ToolAnswer>
  >);
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
