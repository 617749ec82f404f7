import { describe, expect, it } from 'vitest';
import { showRecord } from '../../src/record/show.js';

const line = (value: object) => JSON.stringify({ at: 1, ...value });
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
    const shown = showRecord(text, { color: false });
    expect(shown).toContain('task: Add type hints');
    expect(shown).toContain('Turn 1');
    expect(shown).toContain('» Planning first.');
    expect(shown).toContain('▶ Adding hints');
    expect(shown).toContain('✗ bash python3 hello.py (exit 1, 3 ms)');
    expect(shown).toContain('tokens: 150 in, 20 out · $0.01');
    expect(shown).toContain('completed: every todo item is completed (1 turns, 1 tool calls)');
    expect(shown).toContain(
      'delivery: 1 file committed; held back: gha-creds-1.json; pushed to agent/x; pull request #2',
    );
    expect(shown).toContain('result: completed');
  });

  it('names the lines it cannot read, and goes on', () => {
    const shown = showRecord(
      ['not json', line({ type: 'todos', turn: 1 }), line({ type: 'note', text: 'still here' })].join('\n'),
      { color: false },
    );
    expect(shown).toContain('? line 1: not JSON');
    expect(shown).toContain('? line 2: a todos line without items');
    expect(shown).toContain('· still here');
  });

  it('strips control characters from model text, so a record cannot restyle the terminal', () => {
    const shown = showRecord(
      line({ type: 'response', turn: 1, content: [{ type: 'text', text: 'hi \u001b[2Jthere' }] }),
      { color: false },
    );
    expect(shown).not.toContain('\u001b');
  });
});
