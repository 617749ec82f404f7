// Tools that join while the run goes: the maintainer's MCP servers still starting when the model is first
// asked. On a model with tool search their tools are deferred from the first request on, so a server that
// comes up later adds its tools without touching the cached prefix (the tools not deferred, the system
// prompt); the model reads a note when it does, or when it failed. A model without tool search needs every
// tool in the prefix: the run waits for them all before its first request (`outsideFor`).
import type { Toolbox } from './index.js';
import type { OutsideTools } from './types.js';

/** The tools from outside as a run on this model takes them: still coming only where it may add them later. */
export async function outsideFor(
  outside: OutsideTools | undefined,
  toolSearch: boolean,
): Promise<OutsideTools | undefined> {
  if (!outside?.starting || toolSearch) return outside;
  await outside.starting.settled;
  const { tools, servers } = outside;
  return { tools, servers, ...(outside.refusal ? { refusal: outside.refusal.bind(outside) } : {}) };
}

/** What the note that tells the model of servers that joined says: one line each, as the log says them. */
export function joinedNote(lines: readonly string[]): string {
  return `<mcp-servers>These MCP servers finished starting; find a ready server's tools with tool_search_tool_regex (mcp__<server>__ finds all of one server's tools):
${lines.map((line) => `- ${line}`).join('\n')}</mcp-servers>`;
}

/** Hands the toolbox what joined since it last looked, and says so to the model. */
export class LateTools {
  readonly #outside: OutsideTools | undefined;
  readonly #toolbox: Toolbox;
  #tools: number;
  #lines = 0;

  /** `toolbox` was built with the tools there were then. */
  constructor(outside: OutsideTools | undefined, toolbox: Toolbox) {
    this.#outside = outside?.starting ? outside : undefined;
    this.#toolbox = toolbox;
    this.#tools = outside?.tools.length ?? 0;
  }

  /** The servers that came up or failed since the last look, their tools added from the next request on. */
  take(): string | undefined {
    const outside = this.#outside;
    if (!outside) return undefined;
    const tools = outside.tools.slice(this.#tools);
    const lines = outside.servers.slice(this.#lines);
    this.#tools += tools.length;
    this.#lines += lines.length;
    if (tools.length > 0) this.#toolbox.addOutside(tools);
    return lines.length > 0 ? joinedNote(lines) : undefined;
  }
}
