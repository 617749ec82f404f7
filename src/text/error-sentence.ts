// What a failure looks like to a person reading a comment, a log line or an output.
import { redactAndCut } from './redact.js';

/** The message an error carries, or the thrown value as text when it is not an Error. */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** One readable sentence for a comment: never a stack trace. */
export function errorSentence(error: unknown): string {
  const message = errorMessage(error);
  const first = message.split('\n')[0]?.trim() || 'unknown error';
  return redactAndCut(first, 300);
}
