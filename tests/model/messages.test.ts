// The one rewrite of history the API allows after a clearing: every thinking block taken out, and a turn
// that held only thinking left saying so, never empty.
import { describe, expect, it } from 'vitest';
import { withoutThinking, type MessageParam } from '../../src/model/messages.js';

describe('withoutThinking', () => {
  it('takes out thinking and redacted thinking, and keeps everything else as it was', () => {
    const user: MessageParam = { role: 'user', content: 'Tidy up' };
    const plain: MessageParam = { role: 'assistant', content: 'Done.' };
    const toolTurn: MessageParam = {
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: 'plan', signature: 's1' },
        { type: 'redacted_thinking', data: 'opaque' },
        { type: 'tool_use', id: 't1', name: 'bash', input: {} },
      ],
    };
    const untouched: MessageParam = { role: 'assistant', content: [{ type: 'text', text: 'hi' }] };
    const out = withoutThinking([user, toolTurn, plain, untouched]);
    expect(out[0]).toBe(user);
    expect(out[1]).toEqual({
      role: 'assistant',
      content: [{ type: 'tool_use', id: 't1', name: 'bash', input: {} }],
    });
    expect(out[2]).toBe(plain);
    expect(out[3]).toBe(untouched);
    // The input is not changed.
    expect(toolTurn.content).toHaveLength(3);
  });

  it('leaves a turn of thinking alone with words that say its reasoning was cleared', () => {
    const [turn] = withoutThinking([
      { role: 'assistant', content: [{ type: 'thinking', thinking: 'plan', signature: 's1' }] },
    ]);
    expect(turn).toEqual({
      role: 'assistant',
      content: [{ type: 'text', text: '[earlier reasoning cleared]' }],
    });
  });

  it('never touches a user turn, thinking-shaped or not', () => {
    const user = { role: 'user', content: [{ type: 'text', text: 'thinking' }] } as MessageParam;
    expect(withoutThinking([user])[0]).toBe(user);
  });
});
