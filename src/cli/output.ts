// The CLI's two streams, and the only way it prints: each is a screen (src/terminal/screen.ts), so every line
// it writes, the model's included, is inert on the terminal and redacted of every secret the run knows.
import { screen, shouldColor } from '../terminal/screen.js';
import { redactor } from '../text/redact.js';
import type { AgentResult } from '../agent/events.js';
import { renderPanel } from '../terminal/panel.js';

export const stdout = screen(
  (text) => process.stdout.write(redactor.redact(text)),
  shouldColor(process.stdout, process.env),
);
export const stderr = screen(
  (text) => process.stderr.write(redactor.redact(text)),
  shouldColor(process.stderr, process.env),
);

/** The final list, the tokens spent and the model's last words. */
export function printResult(result: AgentResult, out = stdout): void {
  out.print('\n', ...renderPanel(result.todos, 'Final todo list'), '\n');
  const { usage } = result;
  out.print(
    `tokens: ${usage.input_tokens} in, ${usage.cache_read_input_tokens} cache read, ${usage.cache_creation_input_tokens} cache write, ${usage.output_tokens} out\n`,
  );
  if (result.lastText) out.print(`\n${result.lastText}\n`);
}

/** The answer --output-schema asked for, alone on stdout (exit 0), or why there is none (stderr, exit 1). */
export function printAnswer({ structuredOutput: output }: AgentResult): number {
  if (output && 'value' in output) {
    stdout.print(`${JSON.stringify(output.value)}\n`);
    return 0;
  }
  stderr.print(`todo-agent: output_schema: ${output?.error ?? 'the run ended before its final answer'}\n`);
  return 1;
}
