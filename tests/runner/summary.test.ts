// The job summary as the runner gets it (@actions/core writes GITHUB_STEP_SUMMARY, here a file of the test's):
// the final checklist, the structured answer, the run record folded away, and one row per turn.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { AgentEvent } from '../../src/agent/events.js';
import { RunSummary, structuredOutputFailure, structuredOutputJson } from '../../src/runner/summary.js';
import { emptyUsage } from '../../src/model/usage.js';
import { RESULT } from '../support/delivery-fixture.js';

// One file for the whole test file: @actions/core learns the summary's path once, at its first write.
let dir: string;
let file: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'run-summary-'));
  file = join(dir, 'summary.md');
  vi.stubEnv('GITHUB_STEP_SUMMARY', file);
});
beforeEach(async () => {
  await writeFile(file, '');
});
afterAll(async () => {
  vi.unstubAllEnvs();
  await rm(dir, { recursive: true, force: true });
});

const tool = (turn: number, name: string, isError = false): AgentEvent => ({
  type: 'tool',
  turn,
  name,
  input: {},
  output: '',
  isError,
  durationMs: 1,
});

/** A summary that saw two turns: two tool calls (one failed) in the first, none in the second. */
function twoTurns(): RunSummary {
  const summary = new RunSummary();
  const usage = { ...emptyUsage(), input_tokens: 12_000, cache_read_input_tokens: 3000, output_tokens: 250 };
  const end = (turn: number): AgentEvent => ({
    type: 'turn_end',
    turn,
    stopReason: 'tool_use',
    usage,
    total: usage,
    costUsd: 0,
  });
  for (const event of [
    { type: 'turn_start', turn: 1 },
    tool(1, 'bash'),
    tool(1, 'edit_file', true),
    end(1),
    { type: 'turn_start', turn: 2 },
    end(2),
  ] as AgentEvent[])
    summary.observer(event);
  return summary;
}

describe('RunSummary', () => {
  it('writes the checklist, then a row per turn with its tool calls and tokens', async () => {
    await twoTurns().write('### ✅ todo-agent finished: Tidy up', undefined, 3);
    const text = await readFile(file, 'utf8');
    expect(text.startsWith('### ✅ todo-agent finished: Tidy up')).toBe(true);
    expect(text).toContain('<h3>Turns</h3>');
    expect(text).toContain('<td>1</td><td>bash, edit_file ✗</td>');
    expect(text).toContain('<td>2</td><td>—</td>');
    expect(text).toContain('GitHub requests for the model: 3');
    expect(text).not.toContain('Structured output');
    expect(text).not.toContain('Run record');
  });

  it('writes no table for a run without turns, and no count of requests when there were none', async () => {
    await new RunSummary().write('checklist');
    expect((await readFile(file, 'utf8')).trim()).toBe('checklist');
  });

  it('folds the run record away in a fence nothing in it can close, cutting its middle when long', async () => {
    const text = `start\n${'x'.repeat(40_000)}\n\`\`\`\` four backticks\nend <b>`;
    await new RunSummary().write('checklist', { path: 'runs/<1>.jsonl', text });
    const written = await readFile(file, 'utf8');
    expect(written).toContain('<summary>Run record: <code>runs/&lt;1&gt;.jsonl</code></summary>');
    expect(written).toContain('\n`````text\nstart\n');
    expect(written).toContain('characters cut; the file has everything');
    expect(written).toContain('end <b>\n`````\n');
    expect(written.length).toBeLessThan(32_000);
  });

  it('shows the structured answer, or why there is none', async () => {
    const answered = new RunSummary();
    answered.observer({ type: 'end', result: { ...RESULT, structuredOutput: { value: { ok: '```' } } } });
    await answered.write('checklist');
    expect(await readFile(file, 'utf8')).toContain(
      '### Structured output\n\n````json\n{\n  "ok": "```"\n}\n````',
    );
    const missed = new RunSummary();
    missed.observer({ type: 'end', result: { ...RESULT, structuredOutput: { error: 'no match' } } });
    await missed.write('checklist');
    expect(await readFile(file, 'utf8')).toContain('### Structured output\n\nNone: no match');
  });
});

describe('the structured_output output', () => {
  it('is the answer as JSON, empty without one; and the step fails only for an answer that never matched', () => {
    expect(structuredOutputJson({ value: { n: 1 } })).toBe('{"n":1}');
    expect(structuredOutputJson({ error: 'x' })).toBe('');
    expect(structuredOutputJson(undefined)).toBe('');
    expect(structuredOutputFailure({ error: 'no match' })).toBe('output_schema: no match');
    expect(structuredOutputFailure({ value: 1 })).toBeUndefined();
    expect(structuredOutputFailure(undefined)).toBeUndefined();
  });
});
