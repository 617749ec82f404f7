// The CLI's two streams, and the only way it prints: each is a screen (src/terminal/screen.ts), so every line
// it writes, the model's included, is inert on the terminal and redacted of every secret the run knows.
import { screen, shouldColor } from '../terminal/screen.js';
import { redactor } from '../text/redact.js';

export const stdout = screen(
  (text) => process.stdout.write(redactor.redact(text)),
  shouldColor(process.stdout, process.env),
);
export const stderr = screen(
  (text) => process.stderr.write(redactor.redact(text)),
  shouldColor(process.stderr, process.env),
);
