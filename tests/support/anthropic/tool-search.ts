// The tool search tool as the scripted model server plays it, by the tool search tool page
// (platform.claude.com/docs/en/agents-and-tools/tool-use/tool-search-tool, checked 2026-12-03): a request may
// mark tools `defer_loading`, which keeps them out of the prompt until a search finds them; the regex variant
// matches a Python-style pattern (at most 200 characters) against tool names and descriptions and returns
// 3-5 `tool_reference`s, which the API expands inline in the conversation. The rules the API enforces with a
// 400 are enforced here, and the script may not call a deferred tool that no search has found.
import { asArray, isObject } from './cache.js';
import type { Json, ToolSearchContent } from './types.js';

export const REGEX_TOOL = {
  type: 'tool_search_tool_regex_20251119',
  name: 'tool_search_tool_regex',
} as const;
const SEARCH_TYPES = new Set(['tool_search_tool_regex_20251119', 'tool_search_tool_bm25_20251119']);
/** The models the page's supported list leaves out (older ones the fake may be asked to play). */
const WITHOUT_TOOL_SEARCH = /^claude-(opus-4-1|opus-4|sonnet-4)(-\d{8})?$/;
const MAX_PATTERN = 200;
const MAX_RESULTS = 5;

export function toolSearch(query: string): ToolSearchContent {
  return { type: 'tool_search', query };
}

const tools = (body: Json): Json[] => asArray(body.tools).filter(isObject);
const isSearchTool = (tool: Json): boolean => typeof tool.type === 'string' && SEARCH_TYPES.has(tool.type);

/** The names of the tools a `tool_search_tool_result` block references. */
export function referencedTools(block: unknown): string[] {
  if (!isObject(block) || block.type !== 'tool_search_tool_result' || !isObject(block.content)) return [];
  return asArray(block.content.tool_references).flatMap((ref) =>
    isObject(ref) && typeof ref.tool_name === 'string' ? [ref.tool_name] : [],
  );
}

/** Every tool a search in the conversation so far has found. */
export function foundTools(body: Json): Set<string> {
  const found = new Set<string>();
  for (const message of asArray(body.messages))
    if (isObject(message))
      for (const block of asArray(message.content))
        for (const name of referencedTools(block)) found.add(name);
  return found;
}

/** The API's 400 for the request's use of tool search, or undefined. */
export function toolSearchViolation(body: Json): string | undefined {
  const list = tools(body);
  const search = list.findIndex(isSearchTool);
  if (search >= 0 && list[search]?.defer_loading === true)
    return `tools.${search}: the tool search tool itself cannot have defer_loading set`;
  if (search >= 0 && typeof body.model === 'string' && WITHOUT_TOOL_SEARCH.test(body.model))
    return `tools.${search}: '${String(list[search]?.type)}' is not supported on ${body.model}`;
  if (list.length > 0 && list.every((tool) => tool.defer_loading === true))
    return 'All tools have defer_loading set. At least one tool must be non-deferred.';
  const names = new Set(list.map((tool) => tool.name));
  for (const name of foundTools(body))
    if (!names.has(name)) return `Tool reference '${name}' has no corresponding tool definition`;
  return undefined;
}

/** A search the script asked for, answered as the API does: the server tool call and its result. */
export function searchBlocks(query: string, body: Json, id: string): Json[] {
  const call = { type: 'server_tool_use', id, name: REGEX_TOOL.name, input: { query } };
  const failed = (error_code: string): Json[] => [
    call,
    {
      type: 'tool_search_tool_result',
      tool_use_id: id,
      content: { type: 'tool_search_tool_result_error', error_code },
    },
  ];
  if (!tools(body).some(isSearchTool))
    throw new Error('the script searched, but the request has no tool search tool');
  if (query.length > MAX_PATTERN) return failed('pattern_too_long');
  let pattern: RegExp;
  try {
    pattern = new RegExp(query.replace(/^\(\?i\)/, ''), query.startsWith('(?i)') ? 'i' : '');
  } catch {
    return failed('invalid_pattern');
  }
  const matches = tools(body)
    .filter((tool) => tool.defer_loading === true)
    .filter((tool) => pattern.test(`${String(tool.name)}\n${String(tool.description ?? '')}`))
    .slice(0, MAX_RESULTS)
    .map((tool) => ({ type: 'tool_reference', tool_name: String(tool.name) }));
  return [
    call,
    {
      type: 'tool_search_tool_result',
      tool_use_id: id,
      content: { type: 'tool_search_tool_search_result', tool_references: matches },
    },
  ];
}

/**
 * Why a scripted reply may not call `name`: a deferred tool is not in the model's view until a search in the
 * conversation (or earlier in this reply) found it.
 */
export function unfoundCall(name: string, body: Json, foundNow: ReadonlySet<string>): string | undefined {
  const tool = tools(body).find((candidate) => candidate.name === name);
  if (tool?.defer_loading !== true || foundNow.has(name) || foundTools(body).has(name)) return undefined;
  return `the script calls ${name}, a deferred tool that no tool search has found`;
}

/** The definitions a search result expands into, for the token count (the API bills them where they appear). */
export function expandedDefinitions(block: unknown, body: Json): Json[] {
  const names = new Set(referencedTools(block));
  return tools(body).filter((tool) => names.has(String(tool.name)));
}
