// What a failure looks like to a person reading a comment, a log line or an output.
import { redactAndCut } from './redact.js';

/** One readable sentence for a comment: never a stack trace. */
export function errorSentence(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const first = message.split('\n')[0]?.trim() || 'unknown error';
  return redactAndCut(first, 300);
}
