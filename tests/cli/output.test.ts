// The CLI's output (src/cli/output.ts): the final panel and token line, and the answer output_schema asked for
// alone on stdout or its absence on stderr, every line redacted and inert on the terminal.
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { AgentResult } from '../../src/agent/events.js';
import { printAnswer, printResult } from '../../src/cli/output.js';
import { emptyUsage } from '../../src/model/usage.js';
import { screen } from '../../src/terminal/screen.js';
import { redactor } from '../../src/text/redact.js';

const SECRET = 'sk-ant-cli-output-secret-5678';
redactor.add(SECRET);

const result = (more: Partial<AgentResult> = {}): AgentResult => ({
  status: 'completed',
  reason: 'every todo item is completed',
  todos: [{ id: '1', text: 'Fix add()', status: 'completed' }],
  lastText: 'Done.',
  turns: 2,
  toolCalls: 1,
  usage: {
    ...emptyUsage(),
    input_tokens: 120,
    output_tokens: 45,
    cache_read_input_tokens: 300,
    cache_creation_input_tokens: 7,
  },
  costUsd: 0.01,
  ...more,
});

/** What the CLI writes to stdout and stderr while `act` runs. */
function streams(act: () => void): { out: string; err: string } {
  const out: string[] = [];
  const err: string[] = [];
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => out.push(String(chunk)) > 0);
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => err.push(String(chunk)) > 0);
  act();
  vi.restoreAllMocks();
  return { out: out.join(''), err: err.join('') };
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('printResult', () => {
  it('prints the final list, the tokens of each kind and the last words', () => {
    const printed: string[] = [];
    printResult(
      result(),
      screen((text) => printed.push(text), false),
    );
    const text = printed.join('');
    expect(text).toContain('Final todo list');
    expect(text).toContain('Fix add()');
    expect(text).toContain('tokens: 120 in, 300 cache read, 7 cache write, 45 out\n');
    expect(text.endsWith('\nDone.\n')).toBe(true);
  });

  it('leaves out the last words when there are none, and redacts them on stdout when there are', () => {
    const printed: string[] = [];
    printResult(
      result({ lastText: '' }),
      screen((text) => printed.push(text), false),
    );
    expect(printed.join('')).toMatch(/ out\n$/);
    const { out } = streams(() => printResult(result({ lastText: `the key is ${SECRET}` })));
    expect(out).toContain('the key is ***');
    expect(out).not.toContain(SECRET);
  });
});

describe('printAnswer', () => {
  it('prints the answer alone on stdout as one JSON line, and exits 0', () => {
    let code = -1;
    const { out, err } = streams(() => {
      code = printAnswer(result({ structuredOutput: { value: { fixed: true, files: ['a.ts'] } } }));
    });
    expect(code).toBe(0);
    expect(out).toBe('{"fixed":true,"files":["a.ts"]}\n');
    expect(err).toBe('');
  });

  it('says on stderr why there is no answer, and exits 1', () => {
    let code = -1;
    const invalid = streams(() => {
      code = printAnswer(result({ structuredOutput: { error: 'the answer did not match the schema' } }));
    });
    expect(code).toBe(1);
    expect(invalid).toEqual({
      out: '',
      err: 'todo-agent: output_schema: the answer did not match the schema\n',
    });
    const none = streams(() => {
      code = printAnswer(result());
    });
    expect(code).toBe(1);
    expect(none.err).toBe('todo-agent: output_schema: the run ended before its final answer\n');
  });
});
