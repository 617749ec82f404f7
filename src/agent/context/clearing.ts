// Keeping a long run inside the context window: old tool results give way, the todo list never does.
import { withoutThinking, type ContentBlockParam, type MessageParam } from '../../model/messages.js';
import { imageExcessChars } from '../pictures.js';

/** Clear when a request reached this share of the budget: the next turn's tool output still has room. */
export const CLEAR_AT_SHARE = 0.75;
/**
 * What is left after clearing stays under this share, by dropping the oldest whole turns if stubbing is not
 * enough (a very long run keeps a stub and a tool call per turn). The wide gap to CLEAR_AT_SHARE is what
 * makes clearing rare: every clearing changes the cached prefix, so the next request writes the cache anew.
 */
export const CLEAR_DOWN_TO_SHARE = 0.35;
/** The newest user turns whose tool results stay untouched. */
export const KEEP_RECENT_TURNS = 3;
const STUB = '[old tool result cleared]';
const NOTE_STUB = '[old note cleared]';
/** Nudges the loop added: stale copies of the list once newer ones exist. */
const NOTE_PREFIXES = ['<reminder>', '<context-note>', '<open-items>'];
const LONG_INPUT_CHARS = 400;

export function needsClearing(lastPrompt: number, lastOutput: number, window: number): boolean {
  return lastPrompt + lastOutput > window * CLEAR_AT_SHARE;
}

/**
 * Replaces the content of tool results older than the last few turns with a short stub, long string
 * inputs of old tool calls (a whole file sent to write_file) likewise, and old reminders. Every tool_use
 * keeps its tool_result, so the conversation stays valid. The first message, the task, is never touched.
 * Returns how many blocks were cleared.
 */
export function clearOldToolResults(messages: MessageParam[], keepRecent = KEEP_RECENT_TURNS): number {
  const userTurns = messages.flatMap((message, index) => (message.role === 'user' ? [index] : []));
  // The assistant turn just before the oldest kept user turn is kept too: its tool calls stay whole.
  const cutoff = (userTurns.at(-keepRecent) ?? 1) - 1;
  let cleared = 0;
  for (let index = 1; index < cutoff; index++) {
    const message = messages[index];
    if (!message || typeof message.content === 'string') continue;
    const content = message.content.map((block): ContentBlockParam => {
      if (block.type === 'tool_result' && block.content !== STUB) {
        cleared++;
        return { ...block, content: STUB };
      }
      if (block.type === 'text' && NOTE_PREFIXES.some((prefix) => block.text.startsWith(prefix))) {
        cleared++;
        return { ...block, text: NOTE_STUB };
      }
      if (block.type === 'tool_use' && hasLongInput(block.input)) {
        cleared++;
        return { ...block, input: shortenInput(block.input as Record<string, unknown>) };
      }
      return block;
    });
    messages[index] = { ...message, content } as MessageParam;
  }
  return cleared;
}

/**
 * Removes the oldest turns after the task, each an assistant message with the user message that answers
 * it, while the conversation's estimated size (`fixedTokens` for the system prompt and tools, plus
 * `tokensOf` each message) is above `target`. The newest `keepRecent` user turns, and the assistant turns
 * they answer, stay. Roles still alternate and every tool_use keeps its tool_result. Returns how many
 * turns were removed.
 */
export function dropOldTurns(
  messages: MessageParam[],
  estimate: { fixedTokens: number; tokensOf: (message: MessageParam) => number },
  target: number,
  keepRecent = KEEP_RECENT_TURNS,
): number {
  const userTurns = messages.flatMap((message, index) => (message.role === 'user' ? [index] : []));
  const firstKept = (userTurns.at(-keepRecent) ?? 1) - 1;
  let total = messages.reduce((sum, message) => sum + estimate.tokensOf(message), estimate.fixedTokens);
  let end = 1; // messages[1 .. end) go
  while (total > target && end + 2 <= firstKept) {
    const [assistant, user] = [messages[end], messages[end + 1]];
    if (assistant?.role !== 'assistant' || user?.role !== 'user') break;
    total -= estimate.tokensOf(assistant) + estimate.tokensOf(user);
    end += 2;
  }
  messages.splice(1, end - 1);
  return (end - 1) / 2;
}

/**
 * Makes room in a conversation near the budget: old tool results become stubs, then the oldest whole turns
 * go until it is back under CLEAR_DOWN_TO_SHARE. That changes the prefix of every thinking block kept,
 * which the API would refuse, so the kept turns lose their thinking (the documented way). `fixed`: what
 * every request sends besides the messages (system prompt, tools); `lastTokens`: what the last request
 * measured (prompt and output), the rate sizes after clearing are estimated at. Returns how many turns
 * were dropped, or undefined when nothing changed.
 */
export function makeRoom(
  messages: MessageParam[],
  fixed: readonly unknown[],
  lastTokens: number,
  budget: number,
): { dropped: number } | undefined {
  // An image counts as the tokens it costs, not as its base64 characters.
  const charsOf = (value: unknown) => JSON.stringify(value).length - imageExcessChars(value);
  const fixedChars = fixed.reduce<number>((sum, value) => sum + charsOf(value), 0);
  const sentChars = messages.reduce((sum, message) => sum + charsOf(message), fixedChars);
  const perChar = lastTokens / sentChars;
  const cleared = clearOldToolResults(messages);
  const estimate = {
    fixedTokens: fixedChars * perChar,
    tokensOf: (m: MessageParam) => charsOf(m) * perChar,
  };
  const dropped = dropOldTurns(messages, estimate, budget * CLEAR_DOWN_TO_SHARE);
  if (cleared + dropped === 0) return undefined;
  messages.splice(0, messages.length, ...withoutThinking(messages));
  return { dropped };
}

function hasLongInput(input: unknown): boolean {
  return (
    typeof input === 'object' &&
    input !== null &&
    Object.values(input).some((value) => typeof value === 'string' && value.length > LONG_INPUT_CHARS)
  );
}

function shortenInput(input: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(input).map(([key, value]) => [
      key,
      typeof value === 'string' && value.length > LONG_INPUT_CHARS
        ? `[cleared: ${value.length} characters]`
        : value,
    ]),
  );
}
