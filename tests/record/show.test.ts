import { describe, expect, it } from 'vitest';
import { showRecord } from '../../src/record/show.js';
import { screen } from '../../src/terminal/screen.js';
import { expectToContainAll } from '../support/contains.js';
import { foreignControls } from '../support/terminal.js';

const line = (value: object) => JSON.stringify({ at: 1, ...value });
/** A line of the helper `helper-1`'s own run. */
const helperLine = (event: object) => line({ type: 'helper', session: 'helper-1', event });

/** The record as a screen prints it. */
function show(text: string, color = false): string {
  let out = '';
  showRecord(
    text,
    screen((printed) => (out += printed), color),
  );
  return out;
}
const usage = {
  input_tokens: 100,
  output_tokens: 20,
  cache_creation_input_tokens: 0,
  cache_read_input_tokens: 50,
};

describe('showRecord', () => {
  it('prints a run as the terminal shows it: task, turns, model text, the list, tool lines, delivery and result', () => {
    const text = [
      line({ type: 'start', v: 1, task: 'Add type hints', source: 'cli' }),
      line({ type: 'request', turn: 1, messages: [] }),
      line({ type: 'turn_start', turn: 1 }),
      line({
        type: 'response',
        turn: 1,
        content: [{ type: 'thinking' }, { type: 'text', text: 'Planning\nfirst.' }],
      }),
      line({
        type: 'todos',
        turn: 1,
        items: [{ id: '1', text: 'Add hints', status: 'in_progress', activeForm: 'Adding hints' }],
      }),
      line({
        type: 'tool',
        turn: 1,
        name: 'bash',
        input: { command: 'python3 hello.py' },
        output: 'x',
        isError: true,
        durationMs: 3,
        exitCode: 1,
      }),
      line({ type: 'turn_end', turn: 1, stopReason: 'tool_use', usage, total: usage, costUsd: 0.0123 }),
      line({
        type: 'end',
        result: { status: 'completed', reason: 'every todo item is completed', turns: 1, toolCalls: 1 },
      }),
      line({
        type: 'delivery',
        committed: ['M\thello.py'],
        heldBack: ['gha-creds-1.json'],
        pushed: 'agent/x',
        pr: { number: 2, url: 'https://github.com/o/r/pull/2' },
      }),
      line({ type: 'result', status: 'completed' }),
    ].join('\n');
    const shown = show(text);
    expectToContainAll(shown, [
      'task: Add type hints',
      'Turn 1',
      '» Planning first.',
      '▶ Adding hints',
      '✗ bash python3 hello.py (exit 1, 3 ms)',
      'tokens: 150 in, 20 out · $0.01',
      'completed: every todo item is completed (1 turns, 1 tool calls)',
      'delivery: 1 file committed; held back: gha-creds-1.json; pushed to agent/x; pull request #2',
      'result: completed',
    ]);
  });

  it('shows what delivery held back grouped, a folder once with its count and why, and what it left out', () => {
    const shown = show(
      line({
        type: 'delivery',
        committed: ['M\tindex.js'],
        heldBack: [
          { path: '.venv', files: 768, why: 'a Python virtualenv (it holds pyvenv.cfg)' },
          { path: 'gha-creds-1.json', files: 1 },
        ],
        pushed: 'agent/x',
        withheld: {
          paths: ['.github/workflows/ci.yml'],
          reason: 'the token may not create or change workflow files (.github/workflows/ci.yml). Apply it.',
          patch: 'diff --git a/.github/workflows/ci.yml b/.github/workflows/ci.yml\n',
        },
      }),
    );
    expect(shown).toBe(
      '\ndelivery: 1 file committed; held back: .venv (768 files): a Python virtualenv (it holds pyvenv.cfg), ' +
        'gha-creds-1.json; left out .github/workflows/ci.yml (the token may not create or change workflow files ' +
        '(.github/workflows/ci.yml). Apply it.); the record holds their patch; pushed to agent/x\n',
    );
    // A record written before the grouping (every file by path) still reads.
    const old = show(line({ type: 'delivery', committed: [], heldBack: ['a.txt', 'b.txt'] }));
    expect(old).toBe('\ndelivery: 0 files committed; held back: a.txt, b.txt\n');
  });

  it('names the lines it cannot read, and goes on', () => {
    const shown = show(
      ['not json', line({ type: 'todos', turn: 1 }), line({ type: 'note', text: 'still here' })].join('\n'),
    );
    expect(shown).toContain('? line 1: not JSON');
    expect(shown).toContain('? line 2: a todos line without items');
    expect(shown).toContain('· still here');
  });

  it('shows every control character the model wrote as text, so a record cannot act on the terminal', () => {
    const esc = '\u001b';
    const text = [
      line({ type: 'start', v: 1, task: `fix${esc}]0;title${esc}\\`, source: 'cli' }),
      line({ type: 'response', turn: 1, content: [{ type: 'text', text: `hi ${esc}[2Jthere\u009b1m` }] }),
      line({ type: 'todos', turn: 1, items: [{ id: '1', text: `a${esc}[8m`, status: 'in_progress' }] }),
      line({
        type: 'tool',
        turn: 1,
        name: `bash${esc}[2K`,
        input: { command: `curl x | sh\r${esc}[2Knpm test` },
        isError: false,
        durationMs: 1,
      }),
      line({ type: 'note', text: `bell\u0007` }),
      line({ type: 'result', status: 'failed', reason: `bad${esc}]52;c;eA==\u0007` }),
    ].join('\n');
    for (const color of [false, true]) {
      const shown = show(text, color);
      // Without colour no escape at all; with it, only the panel's own styles.
      expect(foreignControls(shown)).toEqual([]);
      if (!color) expect(shown).not.toContain('\u001b');
      expect(shown).toContain('  · bash\\x1b[2K curl x | sh \\x1b[2Knpm test');
      expect(shown).toContain('» hi \\x1b[2Jthere\\x9b1m');
      expect(shown).toContain('result: failed: bad\\x1b]52;c;eA==\\x07');
    }
  });
});

describe("showRecord and the task tool's helpers", () => {
  it("nests a helper's list under the run's item while it runs, and folds it when it ends", () => {
    const helperItems = [
      { id: '1', text: 'Read parse.ts', status: 'in_progress', activeForm: 'Reading parse.ts' },
    ];
    const text = [
      line({ type: 'start', v: 1, task: 'Fix the parser', source: 'cli' }),
      line({ type: 'todos', turn: 1, items: [{ id: '1', text: 'Survey', status: 'in_progress' }] }),
      line({
        type: 'helper_start',
        turn: 2,
        session: 'helper-1',
        kind: 'explore',
        description: 'Find callers',
        under: '1',
      }),
      helperLine({ type: 'todos', turn: 1, items: helperItems }),
      helperLine({
        type: 'tool',
        turn: 2,
        name: 'read_file',
        input: { path: 'parse.ts' },
        isError: false,
        durationMs: 3,
      }),
      helperLine({
        type: 'end',
        result: {
          status: 'completed',
          reason: 'done',
          turns: 3,
          toolCalls: 2,
          todos: [{ ...helperItems[0], status: 'completed' }],
        },
      }),
      // A helper's turn_end is the run's detail: not printed as the run's tokens.
      helperLine({ type: 'turn_end', turn: 3, usage, costUsd: 0.01 }),
    ].join('\n');
    const out = show(text);
    expect(out).toContain(
      '  ▶ Survey\n    ↳ helper-1 (explore): Find callers, 0/1 done\n      ▶ Reading parse.ts',
    );
    expect(out).toContain('    · [helper-1] read_file parse.ts');
    expect(out).toContain('    ↳ helper-1 (explore): Find callers · completed, 1/1 done');
    expect(out).not.toContain('tokens:');
    expect(out).not.toContain('? line');
  });
});
