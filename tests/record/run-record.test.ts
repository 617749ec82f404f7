import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openRunRecord, RECORD_VERSION } from '../../src/record/run-record.js';
import { Redactor } from '../../src/text/redact.js';

const usage = {
  input_tokens: 10,
  output_tokens: 5,
  cache_creation_input_tokens: 0,
  cache_read_input_tokens: 0,
};

async function lines(path: string): Promise<Record<string, unknown>[]> {
  return (await readFile(path, 'utf8'))
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe('the run record', () => {
  it('writes one stamped line per event, with start, delivery and result around them, every string redacted', async () => {
    const path = join(await mkdtemp(join(tmpdir(), 'record-')), 'run.jsonl');
    const redactor = new Redactor();
    redactor.add('s3cret-value-42');
    const record = openRunRecord(path, (text) => redactor.redact(text));
    record.start({ task: 'fix it with s3cret-value-42', source: 'issue_comment', thread: 'o/r#1' });
    record.observer({ type: 'turn_start', turn: 1 });
    record.observer({
      type: 'request',
      turn: 1,
      messages: [
        { role: 'assistant', content: [{ type: 'text', text: 'earlier answer' }] },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 't1', content: 'long output s3cret-value-42' },
            { type: 'text', text: 'a reminder' },
          ],
        },
      ],
    });
    record.observer({ type: 'assistant_text', turn: 1, text: 'said once, in the response' });
    record.observer({
      type: 'response',
      turn: 1,
      stopReason: 'tool_use',
      content: [{ type: 'thinking' }, { type: 'text', text: 'said once, in the response' }],
      usage,
    });
    record.observer({
      type: 'tool',
      turn: 1,
      name: 'bash',
      input: { command: 'echo ghp_abcdefghijklmnopqrstuvwxyz0123456789' },
      output: 'exit code: 0\nok',
      isError: false,
      durationMs: 12,
      exitCode: 0,
    });
    record.delivery({ committed: ['M\thello.py'], heldBack: [], pushed: 'agent/issue-1-1' });
    record.result({ status: 'completed' });
    await record.close();

    const written = await lines(path);
    expect(written.map((line) => line.type)).toEqual([
      'start',
      'turn_start',
      'request',
      'response',
      'tool',
      'delivery',
      'result',
    ]);
    for (const line of written) expect(typeof line.at).toBe('number');
    expect(written[0]).toMatchObject({ v: RECORD_VERSION, task: 'fix it with ***' });
    // The request keeps the user turn only, and points its tool result at the tool line.
    expect(written[2]!.messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 't1', content: '(the tool line holds the result)' },
          { type: 'text', text: 'a reminder' },
        ],
      },
    ]);
    expect(written[4]).toMatchObject({ input: { command: 'echo ***' }, exitCode: 0 });
    const text = await readFile(path, 'utf8');
    expect(text).not.toContain('s3cret-value-42');
    expect(text).not.toContain('ghp_');
  });

  it('fails at once on a path it cannot write, before any run', async () => {
    expect(() => openRunRecord('/nonexistent-dir/run.jsonl', (t) => t)).toThrow(/ENOENT/);
  });

  it('writes nothing after close, and close can be called twice', async () => {
    const path = join(await mkdtemp(join(tmpdir(), 'record-')), 'run.jsonl');
    const record = openRunRecord(path, (t) => t);
    record.note('one');
    await record.close();
    record.note('two');
    await record.close();
    expect((await lines(path)).map((line) => line.text)).toEqual(['one']);
  });
});

describe("the run record and the task tool's helpers", () => {
  it("keeps each helper's events under its own session id, shaped as the run's own lines", async () => {
    const path = join(await mkdtemp(join(tmpdir(), 'record-')), 'run.jsonl');
    const record = openRunRecord(path, (text) => text);
    const items = [{ id: '1', text: 'Read parse.ts', status: 'in_progress' as const }];
    record.observer({ type: 'todos', turn: 1, items: [{ id: '1', text: 'Fix it', status: 'in_progress' }] });
    record.observer({
      type: 'helper_start',
      turn: 2,
      session: 'helper-1',
      kind: 'explore',
      description: 'Survey',
      under: '1',
    });
    record.observer({ type: 'helper', session: 'helper-1', event: { type: 'todos', turn: 1, items } });
    record.observer({
      type: 'helper',
      session: 'helper-1',
      event: { type: 'assistant_text', turn: 1, text: 'kept in the response line' },
    });
    record.observer({
      type: 'helper',
      session: 'helper-1',
      event: {
        type: 'request',
        turn: 2,
        messages: [
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't', content: 'big output' }] },
        ],
      },
    });
    await record.close();
    const written = await lines(path);
    expect(written.map((line) => [line.type, line.session ?? 'main'])).toEqual([
      ['todos', 'main'],
      ['helper_start', 'helper-1'],
      ['helper', 'helper-1'],
      ['helper', 'helper-1'],
    ]);
    expect(written[2]!.event).toMatchObject({ type: 'todos', items });
    // A helper's request keeps only its user turns, pointing at the tool lines, as the run's own do.
    expect(JSON.stringify(written[3]!.event)).toContain('(the tool line holds the result)');
    expect(JSON.stringify(written)).not.toContain('big output');
  });
});
