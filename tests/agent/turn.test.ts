// The bookkeeping of a run's conversation: what a response adds to the history and the totals, what the
// next request has not sent yet, and the shapes of a tool's answer.
import { describe, expect, it } from 'vitest';
import { addUsage, hasText, observedBlock, toolResult, Transcript, usageOf } from '../../src/agent/turn.js';
import type { Message } from '../../src/model/messages.js';
import { emptyUsage } from '../../src/model/usage.js';

/** A response as the SDK returns it, with `content` and the usage given. */
const response = (content: unknown[], usage: Record<string, unknown> = {}): Message =>
  ({
    id: 'msg_1',
    type: 'message',
    role: 'assistant',
    model: 'claude-sonnet-4-5',
    content,
    stop_reason: 'end_turn',
    stop_sequence: null,
    usage: {
      input_tokens: 100,
      output_tokens: 20,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 50,
      ...usage,
    },
  }) as unknown as Message;

describe('Transcript', () => {
  it('starts with the task and its pictures, and records a response without its empty text', () => {
    const picture = {
      type: 'image',
      source: { type: 'base64', media_type: 'image/png', data: 'AA==' },
    } as const;
    const transcript = new Transcript('Tidy up', [picture]);
    expect(transcript.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'Tidy up' }, picture] },
    ]);
    const said = transcript.record(
      response([
        { type: 'text', text: '  ' },
        { type: 'text', text: 'Reading the code.' },
        { type: 'tool_use', id: 't1', name: 'bash', input: {} },
      ]),
    );
    expect(said).toBe('Reading the code.');
    expect(transcript.messages[1]).toEqual({
      role: 'assistant',
      content: [
        { type: 'text', text: 'Reading the code.' },
        { type: 'tool_use', id: 't1', name: 'bash', input: {} },
      ],
    });
    expect(transcript.lastText).toBe('Reading the code.');
    expect([transcript.lastPrompt, transcript.lastOutput]).toEqual([150, 20]);
  });

  it('adds no turn for a response with nothing to send back, and keeps the last words it had', () => {
    const transcript = new Transcript('Tidy up');
    transcript.record(response([{ type: 'text', text: 'Done.' }]));
    expect(transcript.record(response([{ type: 'text', text: '' }]))).toBe('');
    expect(transcript.messages).toHaveLength(2);
    expect(transcript.lastText).toBe('Done.');
  });

  it('adds up every response, a compaction’s own tokens included, but sizes the context without them', () => {
    const transcript = new Transcript('Tidy up');
    transcript.record(response([{ type: 'text', text: 'a' }]));
    transcript.record(
      response([{ type: 'text', text: 'b' }], {
        iterations: [
          { type: 'compaction', input_tokens: 1000, output_tokens: 300 },
          { type: 'message', input_tokens: 100, output_tokens: 20 },
        ],
      }),
    );
    expect(transcript.usage).toEqual({
      input_tokens: 1200,
      output_tokens: 340,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 100,
    });
    expect(transcript.lastPrompt).toBe(150);
  });

  it('hands the next request only what the last did not carry, and counts a rewritten history as sent', () => {
    const transcript = new Transcript('Tidy up');
    expect(transcript.takeUnsent()).toHaveLength(1);
    transcript.record(response([{ type: 'text', text: 'a' }]));
    transcript.reply([{ type: 'text', text: 'go on' }]);
    expect(transcript.takeUnsent()).toEqual([{ role: 'user', content: [{ type: 'text', text: 'go on' }] }]);
    expect(transcript.takeUnsent()).toEqual([]);
    transcript.reply([{ type: 'text', text: 'one' }]);
    transcript.markSent(1);
    expect(transcript.takeUnsent()).toEqual([{ role: 'user', content: [{ type: 'text', text: 'one' }] }]);
  });
});

describe('the pieces of a turn', () => {
  it("answers a tool call with its text, '(no output)' for none, the error flag and its pictures", () => {
    expect(toolResult('t1', 'ok', false)).toEqual({ type: 'tool_result', tool_use_id: 't1', content: 'ok' });
    expect(toolResult('t1', '', true)).toEqual({
      type: 'tool_result',
      tool_use_id: 't1',
      content: '(no output)',
      is_error: true,
    });
    const withPicture = toolResult('t2', 'a.png', false, [
      { mediaType: 'image/png', data: 'AA==', width: 1, height: 1 },
    ]);
    expect(withPicture).toMatchObject({
      content: [
        { type: 'text', text: 'a.png' },
        { type: 'image', source: { media_type: 'image/png', data: 'AA==' } },
      ],
    });
  });

  it('shows observers a thinking block by its type only, and tells a response with words from one without', () => {
    expect(observedBlock({ type: 'thinking', thinking: 'secret plan', signature: 's' })).toEqual({
      type: 'thinking',
    });
    expect(observedBlock({ type: 'text', text: 'hi', citations: null })).toEqual({
      type: 'text',
      text: 'hi',
    });
    expect(hasText(response([{ type: 'text', text: ' \n' }]))).toBe(false);
    expect(hasText(response([{ type: 'text', text: 'hi' }]))).toBe(true);
  });

  it('adds usages field by field', () => {
    const total = emptyUsage();
    expect(addUsage(total, usageOf(response([])))).toBe(total);
    expect(addUsage(total, usageOf(response([])))).toEqual({
      input_tokens: 200,
      output_tokens: 40,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 100,
    });
  });
});
