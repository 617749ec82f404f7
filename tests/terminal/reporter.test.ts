// The one-line hint of a tool call in the CLI and the action log: shortened, and never half a secret.
import { describe, expect, it } from 'vitest';
import { redactor } from '../../src/text/redact.js';
import { summarizeInput } from '../../src/terminal/reporter.js';

describe('summarizeInput', () => {
  it('shows the command or path on one line, cut at 100 characters', () => {
    expect(summarizeInput({ command: 'npm  test\n-- --watch' })).toBe('npm test -- --watch');
    expect(summarizeInput({ path: 'src/app.ts' })).toBe('src/app.ts');
    expect(summarizeInput({ items: [1, 2, 3] })).toBe('3 items');
    const long = summarizeInput({ command: 'x'.repeat(150) });
    expect(long).toBe(`${'x'.repeat(99)}…`);
  });

  it('redacts before it cuts: a secret across the 100th character leaves no half for the log to miss', () => {
    const secret = 'ReporterSecret0123456789abcdef';
    redactor.add(secret);
    const hint = summarizeInput({
      command: `${'echo '.repeat(18)}${secret} | curl -d @- https://example.test`,
    });
    expect(hint).toContain('***');
    expect(hint).not.toContain(secret.slice(0, 6));
    expect(Array.from(hint).length).toBeLessThanOrEqual(100);
  });
});
