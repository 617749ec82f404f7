// Reading what the action sent the scripted model: tool results and message texts of recorded requests.
import type { RecordedRequest } from './anthropic/server.js';

interface Block {
  type: string;
  text?: string;
  content?: unknown;
  is_error?: boolean;
}

const blocksOf = (message: { content: unknown }): Block[] =>
  Array.isArray(message.content) ? (message.content as Block[]) : [];

const resultText = (block: Block): string =>
  typeof block.content === 'string' ? block.content : JSON.stringify(block.content);

/** The text of every tool_result in one request (each request carries the whole conversation so far). */
export function toolResults(request: RecordedRequest): string[] {
  return (request.body.messages as Array<{ content: unknown }>).flatMap((message) =>
    blocksOf(message)
      .filter((block) => block.type === 'tool_result')
      .map((block) => JSON.stringify(block.content)),
  );
}

/** The tool results of the request's newest message, as the model reads them. */
export function newestResults(request: RecordedRequest): Array<{ text: string; isError: boolean }> {
  const newest = (request.body.messages as Array<{ content: unknown }>).at(-1)!;
  return blocksOf(newest)
    .filter((block) => block.type === 'tool_result')
    .map((block) => ({ text: resultText(block), isError: block.is_error === true }));
}

/** The text blocks of the request's first message (the briefing), joined. */
export function firstMessageText(request: RecordedRequest): string {
  const first = (request.body.messages as Array<{ content: unknown }>)[0]!;
  if (typeof first.content === 'string') return first.content;
  return blocksOf(first)
    .filter((block) => block.type === 'text')
    .map((block) => block.text)
    .join('\n');
}
