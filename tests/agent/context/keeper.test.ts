import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { AgentEvent } from '../../../src/agent/events.js';
import { runAgent } from '../../../src/agent/loop.js';
import { Model, type ModelOptions } from '../../../src/model/client.js';
import { estimateCost, modelInfo } from '../../../src/model/catalogue.js';
import { LONG_RUN_FILE, longReadScript, longRunFileText } from '../../support/bench/scripts.js';
import { estimateInputTokens } from '../../support/anthropic/server.js';
import type { ScriptStep } from '../../support/anthropic/server.js';
import { useAgentWorkspace } from '../../support/agent-workspace.js';
import { ON_DEMAND_BETA, THRESHOLD_BETA } from '../../support/anthropic/compaction.js';
import { awsEnv, startBedrockServer } from '../../support/providers/bedrock-server.js';
import type { BedrockServerOptions } from '../../support/providers/bedrock-server.js';
import { startVertexServer } from '../../support/providers/vertex-server.js';
import { startGoogleTokenServer } from '../../support/providers/google-token-server.js';

const KEY = 'sk-ant-keeper-test-000000000000';
/** A model both compaction pages list (and a 200k window); claude-sonnet-5-5 is not on them. */
const COMPACTING = 'claude-opus-4-6';
const ws = useAgentWorkspace('keeper-');
/** Closes the stand-in provider server a test started, if any. */
let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
  vi.unstubAllEnvs();
});

type Body = {
  messages: {
    role: string;
    content: { type: string; text?: string; signature?: string; content?: string | null }[];
  }[];
};

/** A long run reading a file every turn on a compacting model, held to `budget`. */
async function longRun(options: {
  turns: number;
  budget: number;
  fileChars?: number;
  compaction?: 'auto' | 'off';
  summary?: () => string | null;
  model?: Partial<ModelOptions>;
  changedFiles?: () => Promise<string | undefined>;
}) {
  await writeFile(join(ws.dir, LONG_RUN_FILE), longRunFileText(options.fileChars ?? 4_000));
  if (!options.model) {
    await ws.serve(longReadScript(options.turns), {
      apiKey: KEY,
      ...(options.summary ? { summary: options.summary } : {}),
    });
  }
  const events: AgentEvent[] = [];
  const model = new Model({
    apiKey: KEY,
    baseURL: ws.server?.url,
    maxRetries: 0,
    model: COMPACTING,
    compaction: options.compaction ?? 'auto',
    ...options.model,
  });
  const result = await runAgent({
    task: 'Summarise the logs',
    model,
    workspace: ws.dir,
    maxTurns: options.turns + 100,
    maxContextTokens: options.budget,
    observers: [(event) => events.push(event)],
    ...(options.changedFiles ? { changedFiles: options.changedFiles } : {}),
  });
  return { result, events, model };
}

/** A Bedrock stand-in playing `script`, with the AWS credentials in the environment, closed after the test. */
async function bedrockStand(script: ScriptStep[], options?: BedrockServerOptions) {
  for (const [name, value] of Object.entries(awsEnv())) vi.stubEnv(name, value);
  const stand = await startBedrockServer(script, undefined, options);
  close = () => stand.close();
  return stand;
}

/** A long run on Bedrock (compaction at a threshold), its stand-in answering with longReadScript(turns). */
async function longRunOnBedrock(turns: number, options?: BedrockServerOptions) {
  const stand = await bedrockStand(longReadScript(turns), options);
  const run = await longRun({
    turns,
    budget: 100_000,
    fileChars: 12_000,
    model: { provider: 'bedrock', baseURL: stand.url, model: `anthropic.${COMPACTING}-v1:0` },
  });
  return { stand, run };
}

const compactionsOf = (events: AgentEvent[]) => events.filter((e) => e.type === 'compaction');
const reminders = (events: AgentEvent[]) =>
  events.filter((e) => e.type === 'nudge' && e.kind === 'todo_reminder').length;

/** The run completed, and each compaction it told of came back without a summary (none counted as done). */
function expectOnlyUnsummarized(run: Awaited<ReturnType<typeof longRun>>): void {
  expect(run.result.status).toBe('completed');
  const told = compactionsOf(run.events);
  expect(told.length).toBeGreaterThan(0);
  expect(told.every((e) => e.type === 'compaction' && !e.summarized)).toBe(true);
  expect(run.result.compactions).toBeUndefined();
}

describe('compaction on demand (the Anthropic API, a model that offers it)', { timeout: 120_000 }, () => {
  it('compacts near the budget: the next request starts with the block and re-states the task, the list and the files', async () => {
    const run = await longRun({
      turns: 150,
      budget: 40_000,
      changedFiles: () => Promise.resolve('- src/report.md (new, +12 −0)'),
    });
    const requests = ws.server!.requests;
    expect(ws.server!.violations).toEqual([]);
    expect(run.model.compaction).toBe('on-demand');
    expect(run.result.status).toBe('completed');
    const asks = requests.filter((r) => r.body.compaction);
    expect(asks.length).toBeGreaterThan(1);
    expect(run.result.compactions).toBe(asks.length);
    for (const ask of asks) {
      expect(ask.body.compaction.type).toBe('summarize');
      expect(ask.body.compaction.instructions).toMatch(/findings.*decisions.*failed/s);
      expect(ask.body.context_management).toBeUndefined();
      expect(String(ask.headers['anthropic-beta'])).toContain(ON_DEMAND_BETA);
      // The compaction request ends on a complete turn: the user turn that answered the last tool call.
      expect(ask.body.messages.at(-1).role).toBe('user');
      // The request after it carries the block first, exactly as the server returned it.
      const next = requests[ask.index + 1]!.body as Body;
      expect(next.messages[0]!.content[0]!.type).toBe('compaction');
      expect(next.messages[0]!.content[0]!.signature).toEqual(expect.any(String));
      // Its last user turn re-states the task, the list with its statuses and the one in progress, the files.
      const restated = JSON.stringify(next.messages.at(-1));
      expect(restated).toContain('Summarise the logs');
      expect(restated).toMatch(/\[>\] #\d: (Survey|Summarise|Write)/);
      expect(restated).toMatch(/In progress: #\d/);
      expect(restated).toContain('src/report.md (new, +12 −0)');
      // Every later request carries the beta and exactly one block.
      for (const later of requests.slice(ask.index + 1))
        expect(String(later.headers['anthropic-beta'])).toContain(ON_DEMAND_BETA);
    }
    // No request grew past the budget.
    expect(Math.max(...requests.map((r) => estimateInputTokens(r.body)))).toBeLessThan(40_000);
  });

  it('counts the compaction tokens (only in usage.iterations) in usage and cost; the reminder count is unaffected', async () => {
    const run = await longRun({ turns: 120, budget: 40_000 });
    const compactions = compactionsOf(run.events);
    expect(compactions.length).toBeGreaterThan(0);
    const spent = compactions.reduce(
      (sum, e) =>
        sum + (e.type === 'compaction' ? e.usage!.input_tokens + e.usage!.cache_read_input_tokens : 0),
      0,
    );
    expect(spent).toBeGreaterThan(0);
    const replies = run.events.filter((e) => e.type === 'response');
    const replyInput = replies.reduce(
      (sum, e) => sum + (e.type === 'response' ? e.usage.input_tokens + e.usage.cache_read_input_tokens : 0),
      0,
    );
    const { usage } = run.result;
    expect(usage.input_tokens + usage.cache_read_input_tokens).toBe(replyInput + spent);
    expect(run.result.costUsd).toBe(estimateCost(modelInfo(COMPACTING).prices, usage));
    // The running total the cost cap reads (max_cost_usd checks estimateCost of it after every answer) takes
    // the compaction in on the turn it happened: that turn's total grows by its reply and the compaction.
    const firstCompaction = run.events.findIndex((e) => e.type === 'compaction');
    const ends = run.events.flatMap((e, index) => (e.type === 'turn_end' ? [{ e, index }] : []));
    const before = ends.filter(({ index }) => index < firstCompaction).at(-1)!.e;
    const after = ends.find(({ index }) => index > firstCompaction)!.e;
    const compacted = run.events[firstCompaction]!;
    if (before.type !== 'turn_end' || after.type !== 'turn_end' || compacted.type !== 'compaction')
      throw new Error('unexpected events');
    const read = (u: typeof usage) =>
      u.input_tokens + u.cache_read_input_tokens + u.cache_creation_input_tokens;
    expect(read(after.total) - read(before.total)).toBe(read(after.usage) + read(compacted.usage!));
    expect(after.costUsd).toBeGreaterThan(before.costUsd);
    // The same script with clearing reminds exactly as often: a compaction is no turn.
    await ws.server!.close();
    const cleared = await longRun({ turns: 120, budget: 40_000, compaction: 'off' });
    expect(compactionsOf(cleared.events)).toEqual([]);
    expect(reminders(run.events)).toBe(reminders(cleared.events));
  });

  it('a compaction that comes back without a summary is a no-op the run survives, by clearing', async () => {
    const run = await longRun({ turns: 80, budget: 30_000, summary: () => null });
    expect(ws.server!.violations).toEqual([]);
    expectOnlyUnsummarized(run);
    expect(run.events.some((e) => e.type === 'nudge' && e.kind === 'context_cleared')).toBe(true);
    // No request ever carried a block.
    expect(JSON.stringify(ws.server!.requests.map((r) => r.body.messages))).not.toContain('"compaction"');
  });

  it('holds a 400-turn run inside the window at 90 % cacheable or more', async () => {
    const run = await longRun({ turns: 400, budget: 60_000, fileChars: 6_000 });
    expect(ws.server!.violations).toEqual([]);
    expect(run.result.status).toBe('completed');
    const sizes = ws.server!.requests.map((r) => estimateInputTokens(r.body));
    expect(Math.max(...sizes)).toBeLessThan(60_000);
    const { usage } = run.result;
    const share =
      usage.cache_read_input_tokens /
      (usage.input_tokens + usage.cache_read_input_tokens + usage.cache_creation_input_tokens);
    expect(share).toBeGreaterThanOrEqual(0.9);
    expect(run.result.compactions).toBeGreaterThan(2);
  });

  it('compaction off clears instead, and a model the pages do not list never asks for one', async () => {
    const off = await longRun({ turns: 60, budget: 20_000, compaction: 'off' });
    expect(off.model.compaction).toBeUndefined();
    expect(ws.server!.requests.some((r) => r.body.compaction || r.body.context_management)).toBe(false);
    expect(
      ws.server!.requests.some((r) => String(r.headers['anthropic-beta'] ?? '').includes('compact')),
    ).toBe(false);
    expect(new Model({ apiKey: KEY, model: 'claude-sonnet-5-5' }).compaction).toBeUndefined();
    expect(new Model({ apiKey: KEY, model: 'claude-haiku-4-5' }).compaction).toBeUndefined();
  });
});

describe(
  'compaction at a threshold (Amazon Bedrock, where on-demand is not offered)',
  { timeout: 120_000 },
  () => {
    it('sends the edit with a trigger of at least 50,000 tokens; the block starts the answer, and the next turn re-states the records', async () => {
      const { stand, run } = await longRunOnBedrock(120);
      const requests = stand.model.requests;
      expect(stand.model.violations).toEqual([]);
      expect(stand.refusals).toEqual([]);
      expect(run.model.compaction).toBe('threshold');
      expect(run.result.status).toBe('completed');
      for (const request of requests) {
        const edit = request.body.context_management.edits[0];
        expect(edit.type).toBe('compact_20260112');
        expect(edit.trigger.value).toBe(75_000);
        expect(request.body.compaction).toBeUndefined();
        expect(String(request.headers['anthropic-beta'])).toContain(THRESHOLD_BETA);
      }
      expect(run.result.compactions).toBeGreaterThan(0);
      const after = requests.filter((r) => (r.body as Body).messages[0]!.content[0]!.type === 'compaction');
      expect(after.length).toBeGreaterThan(0);
      expect(JSON.stringify(after[0]!.body.messages.at(-1))).toMatch(
        /Your todo list, as it stands[\s\S]*\[>\] #1/,
      );
    });
  },
);

describe('a threshold compaction without a summary', { timeout: 120_000 }, () => {
  it('goes back as it came (the API takes it as a no-op), nothing is re-stated, and the run clears and completes', async () => {
    const { stand, run } = await longRunOnBedrock(100, { summary: () => null });
    expect(stand.model.violations).toEqual([]);
    expectOnlyUnsummarized(run);
    expect(run.events.some((e) => e.type === 'nudge' && e.kind === 'context_compacted')).toBe(false);
    // The empty block went back in the history it came in, as returned.
    const sentBack = stand.model.requests.some((r) =>
      (r.body as Body).messages.some((m) =>
        m.content.some((b) => b.type === 'compaction' && b.content === null),
      ),
    );
    expect(sentBack).toBe(true);
    expect(run.events.some((e) => e.type === 'nudge' && e.kind === 'context_cleared')).toBe(true);
  });
});

describe('on Vertex AI (on demand is offered there) and on Bedrock (it is not)', { timeout: 120_000 }, () => {
  it('compacts on demand through the Vertex SDK, the beta in the header', async () => {
    const tokens = await startGoogleTokenServer();
    const place = { project: 'todo-agent-test', region: 'us-east5' };
    const stand = await startVertexServer(longReadScript(80), place, tokens);
    close = async () => {
      await stand.close();
      await tokens.close();
    };
    vi.stubEnv('GOOGLE_APPLICATION_CREDENTIALS', await tokens.credentialsFile(ws.dir));
    vi.stubEnv('CLOUD_ML_REGION', place.region);
    vi.stubEnv('GOOGLE_CLOUD_PROJECT', place.project);
    const run = await longRun({
      turns: 80,
      budget: 30_000,
      model: { provider: 'vertex', baseURL: stand.url, model: `${COMPACTING}@20260101` },
    });
    expect(stand.refusals).toEqual([]);
    expect(stand.model.violations).toEqual([]);
    expect(run.model.compaction).toBe('on-demand');
    expect(run.result.status).toBe('completed');
    expect(run.result.compactions).toBeGreaterThan(0);
    const ask = stand.model.requests.find((r) => r.body.compaction)!;
    expect(String(ask.headers['anthropic-beta'])).toContain(ON_DEMAND_BETA);
    expect(stand.model.requests[ask.index + 1]!.body.messages[0].content[0].type).toBe('compaction');
  });

  it('the Bedrock stand-in refuses on-demand compaction, so a request that asked for it would fail', async () => {
    const stand = await bedrockStand([]);
    const model = new Model({
      provider: 'bedrock',
      baseURL: stand.url,
      maxRetries: 0,
      model: `anthropic.${COMPACTING}-v1:0`,
    });
    expect(model.compaction).toBe('threshold');
    const request = {
      system: 's',
      tools: [],
      messages: [{ role: 'user' as const, content: 'hello' }],
      maxTokens: 100,
      summarize: true,
    };
    await expect(model.send(request)).rejects.toThrow(/not available on Amazon Bedrock/);
  });
});
