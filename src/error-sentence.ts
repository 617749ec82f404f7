// What a failure looks like to a person reading a comment, a log line or an output.

/** One readable sentence for a comment: never a stack trace. */
export function errorSentence(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const first = message.split('\n')[0]?.trim() || 'unknown error';
  return first.length > 300 ? `${first.slice(0, 299)}…` : first;
}
