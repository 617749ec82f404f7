// The shapes of a conversation with the model, and the one rewrite of history the API allows after a clearing.
import type Anthropic from '@anthropic-ai/sdk';

export type MessageParam = Anthropic.MessageParam;
export type ContentBlockParam = Anthropic.ContentBlockParam;
export type Message = Anthropic.Message;
export type ImageBlockParam = Anthropic.ImageBlockParam;

/** A tool as the model is shown it: its name, what it does, and the JSON Schema of its input. */
export interface ToolDefinition {
  name: string;
  description: string;
  input_schema: { type: 'object'; [key: string]: unknown };
  /** Left out of the prompt until the model finds it with the tool search tool. */
  defer_loading?: true;
}

/** The API's regex tool search: with it, tools marked `defer_loading` are found by the model when needed. */
export const TOOL_SEARCH = {
  type: 'tool_search_tool_regex_20251119',
  name: 'tool_search_tool_regex',
} as const;

/** What a request's `tools` holds: our tools, and the API's tool search when some of them are deferred. */
export type ToolParam = ToolDefinition | typeof TOOL_SEARCH;

/** What an assistant turn that held only thinking says once its thinking is gone: content can't be empty. */
const THINKING_STUB = '[earlier reasoning cleared]';

/**
 * The messages with every thinking block taken out, for after a clearing: a kept thinking block would be
 * bound to a prefix that no longer exists, and the API refuses those. A turn left with nothing says so.
 */
export function withoutThinking(messages: readonly MessageParam[]): MessageParam[] {
  return messages.map((message) => {
    if (message.role !== 'assistant' || typeof message.content === 'string') return message;
    const kept = message.content.filter((b) => b.type !== 'thinking' && b.type !== 'redacted_thinking');
    if (kept.length === message.content.length) return message;
    return { ...message, content: kept.length > 0 ? kept : [{ type: 'text', text: THINKING_STUB }] };
  });
}
