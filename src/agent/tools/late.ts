// Tools that join while the run goes: the maintainer's MCP servers still starting when the model is first
// asked. On a model with tool search their tools are deferred from the first request on, so a server that
// comes up later adds its tools without touching the cached prefix (the tools not deferred, the system
// prompt); the model reads a note when it does, or when it failed (the toolbox's `withJoined`). A model
// without tool search needs every tool in the prefix: the run waits for them all before its first request.
import type { ContentBlockParam } from '../../model/messages.js';
import type { AgentOptions } from '../options.js';
import type { OutsideTool, OutsideTools } from './types.js';

/** The run's options with the tools from outside as this model takes them: still coming only where it may add them later. */
export async function outsideFor(options: AgentOptions): Promise<AgentOptions> {
  const { outside } = options;
  if (!outside?.starting || options.model.info.toolSearch) return options;
  await outside.starting.settled;
  const { tools, servers } = outside;
  const refusal = outside.refusal?.bind(outside);
  return { ...options, outside: { tools, servers, ...(refusal ? { refusal } : {}) } };
}

/** What the note that tells the model of servers that joined says: one line each, as the log says them. */
export function joinedNote(lines: readonly string[]): string {
  return `<mcp-servers>These MCP servers finished starting; find a ready server's tools with tool_search_tool_regex (mcp__<server>__ finds all of one server's tools):
${lines.map((line) => `- ${line}`).join('\n')}</mcp-servers>`;
}

/** Hands the toolbox what joined since it last looked, and says so to the model. */
export class LateTools {
  readonly #outside: OutsideTools | undefined;
  readonly #add: (tools: readonly OutsideTool[]) => void;
  readonly #note: (text: string) => ContentBlockParam;
  #tools: number;
  #lines = 0;

  /**
   * `add` puts tools in the toolbox (built with the tools there were then); `note` makes the model's note
   * (and tells the run's observers of it).
   */
  constructor(
    outside: OutsideTools | undefined,
    add: (tools: readonly OutsideTool[]) => void,
    note: (text: string) => ContentBlockParam,
  ) {
    this.#outside = outside?.starting ? outside : undefined;
    this.#add = add;
    this.#note = note;
    this.#tools = outside?.tools.length ?? 0;
  }

  /**
   * The servers that came up or failed since the last look: their tools join the toolbox (from the next
   * request on), and the note that says so, for the user turn that request ends with (none: nothing came).
   */
  take(): ContentBlockParam[] {
    const outside = this.#outside;
    if (!outside) return [];
    const tools = outside.tools.slice(this.#tools);
    const lines = outside.servers.slice(this.#lines);
    this.#tools += tools.length;
    this.#lines += lines.length;
    if (tools.length > 0) this.#add(tools);
    return lines.length > 0 ? [this.#note(joinedNote(lines))] : [];
  }
}
