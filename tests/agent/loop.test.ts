import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../src/agent/events.js';
import { runAgent } from '../../src/agent/loop.js';
import type { AgentOptions } from '../../src/agent/options.js';
import { Model } from '../../src/model/client.js';
import { REMINDER_PREFIX } from '../../src/agent/todo/reminder.js';
import { Redactor } from '../../src/text/redact.js';
import type { OutsideTools } from '../../src/agent/tools/types.js';
import {
  apiError,
  BINDING_BETA,
  MODE_MODEL_ID,
  reply,
  text,
  toolSearch,
  toolUse,
  type ModelMode,
  type RecordedRequest,
  type ScriptStep,
} from '../support/anthropic/server.js';
import { useAgentWorkspace } from '../support/agent-workspace.js';

const KEY = 'sk-ant-test-key-0000000000000000';
const ws = useAgentWorkspace('loop-');

async function play(script: ScriptStep[], options: Partial<AgentOptions> = {}, mode: ModelMode = 'classic') {
  const server = await ws.serve(script, { apiKey: KEY, mode });
  const events: AgentEvent[] = [];
  const result = await runAgent({
    task: 'Refactor hello.py',
    model: new Model({ apiKey: KEY, baseURL: server.url, maxRetries: 0, model: MODE_MODEL_ID[mode] }),
    workspace: ws.dir,
    observers: [(event) => events.push(event)],
    ...options,
  });
  return { result, events, requests: server.requests, violations: server.violations };
}

const plan = (...statuses: string[]) =>
  toolUse('todo', {
    items: statuses.map((status, i) => ({
      text: `step ${i + 1}`,
      status,
      activeForm: `Doing step ${i + 1}`,
    })),
  });
const bash = (command: string) => toolUse('bash', { command });

/** The user turn a request ends with, as blocks. */
function lastUserBlocks(
  request: RecordedRequest,
): Array<{ type: string; text?: string; is_error?: boolean; content?: unknown }> {
  const last = request.body.messages.at(-1);
  return typeof last.content === 'string' ? [{ type: 'text', text: last.content }] : last.content;
}
const hasReminder = (request: RecordedRequest) =>
  lastUserBlocks(request).some((block) => block.type === 'text' && block.text?.startsWith(REMINDER_PREFIX));

describe('the agent loop', () => {
  it('plans, works, completes every item and ends with the summary', async () => {
    const { result, events, requests, violations } = await play([
      reply(text('I will plan first.'), plan('in_progress', 'pending')),
      reply(bash('echo hello > out.txt')),
      reply(plan('completed', 'in_progress')),
      reply(toolUse('read_file', { path: 'out.txt' })),
      reply(plan('completed', 'completed')),
      reply(text('Wrote out.txt and checked it.')),
    ]);
    expect(violations).toEqual([]);
    expect(result.status).toBe('completed');
    expect(result.turns).toBe(6);
    expect(result.toolCalls).toBe(5);
    expect(result.lastText).toBe('Wrote out.txt and checked it.');
    expect(result.todos.map((t) => t.status)).toEqual(['completed', 'completed']);
    expect(await readFile(join(ws.dir, 'out.txt'), 'utf8')).toBe('hello\n');
    expect(events.filter((e) => e.type === 'todos')).toHaveLength(3);
    expect(result.usage.input_tokens + result.usage.cache_read_input_tokens).toBeGreaterThan(0);
    // The read_file result went back to the model.
    expect(JSON.stringify(requests[4]?.body.messages.at(-1))).toContain('hello');
    expect(requests.every((r) => r.body.temperature === undefined && r.body.stream === true)).toBe(true);
  });

  it('reminds after three turns without a todo update, after the tool results, and not on other requests', async () => {
    const { requests, violations, events } = await play(
      [
        reply(plan('in_progress', 'pending')), // request 0 -> todo
        reply(bash('true')), // 1
        reply(bash('true')), // 2
        reply(bash('true')), // 3: third turn without todo -> reminder on request 4
        reply(bash('true')), // 4
        reply(bash('true')), // 5
        reply(bash('true')), // 6: third again -> reminder on request 7
        reply(plan('completed', 'completed')), // 7
        reply(text('done')), // 8
      ],
      { reminderRounds: 3 },
    );
    expect(violations).toEqual([]);
    const reminded = requests.map((r, i) => (hasReminder(r) ? i : -1)).filter((i) => i >= 0);
    expect(reminded).toEqual([4, 7]);
    const blocks = lastUserBlocks(requests[4]!);
    expect(blocks[0]?.type).toBe('tool_result');
    expect(blocks.at(-1)?.text).toContain('[>] #1: step 1');
    expect(events.filter((e) => e.type === 'nudge' && e.kind === 'todo_reminder')).toHaveLength(2);
  });

  it('counts every turn toward the reminder, whatever its stop reason', async () => {
    const { requests, violations } = await play(
      [
        reply(plan('in_progress', 'pending')), // request 0 -> todo
        { content: [text('Let me think…')], stop_reason: 'max_tokens' }, // 1: a cut-off reply
        { content: [text('Still thinking…')], stop_reason: 'pause_turn' }, // 2: a paused one
        reply(text('I will stop here.')), // 3: stops with open items -> nudged, and reminded
        reply(plan('completed', 'completed')), // 4
        reply(text('done')), // 5
      ],
      { reminderRounds: 3 },
    );
    expect(violations).toEqual([]);
    expect(requests.map(hasReminder)).toEqual([false, false, false, false, true, false]);
  });

  it('reminds a model that never plans', async () => {
    const { requests } = await play(
      [
        reply(bash('true')),
        reply(bash('true')),
        reply(bash('true')),
        reply(plan('completed')),
        reply(text('ok')),
      ],
      { reminderRounds: 3 },
    );
    expect(requests.map(hasReminder)).toEqual([false, false, false, true, false]);
  });

  it('refuses an invalid todo update with an error result and keeps the list', async () => {
    const { result, requests, violations } = await play([
      reply(plan('in_progress', 'pending')),
      reply(plan('in_progress', 'in_progress')),
      reply(toolUse('todo', { items: [{ text: '', status: 'pending' }] })),
      reply(plan('completed', 'completed')),
      reply(text('done')),
    ]);
    expect(violations).toEqual([]);
    const refusal = lastUserBlocks(requests[2]!)[0];
    expect(refusal).toMatchObject({ type: 'tool_result', is_error: true });
    expect(JSON.stringify(refusal?.content)).toContain('only one item may be in_progress');
    expect(JSON.stringify(lastUserBlocks(requests[3]!)[0]?.content)).toContain('text is required');
    expect(result.status).toBe('completed');
  });

  it('turns bad input, path escapes and failed edits into error results the model can act on', async () => {
    const { requests, violations } = await play([
      reply(
        toolUse('bash', { cmd: 'ls' }),
        toolUse('read_file', { path: '../../etc/passwd' }),
        toolUse('edit_file', { path: 'none.txt', old_text: 'a', new_text: 'b' }),
      ),
      reply(plan('completed')),
      reply(text('done')),
    ]);
    expect(violations).toEqual([]);
    const results = lastUserBlocks(requests[1]!);
    expect(results.map((b) => b.is_error)).toEqual([true, true, true]);
    expect(JSON.stringify(results[0]?.content)).toContain('command');
    expect(JSON.stringify(results[1]?.content)).toContain('escapes the workspace');
    expect(JSON.stringify(results[2]?.content)).toMatch(/no such file|not found/);
  });

  it('nudges twice when the model stops with open items, then ends incomplete', async () => {
    const { result, requests, events } = await play([
      reply(plan('in_progress', 'pending')),
      reply(text('I think I am done.')),
      reply(text('Really done.')),
      reply(text('Stopping.')),
    ]);
    expect(result.status).toBe('incomplete');
    expect(result.reason).toContain('2 of 2 items open');
    expect(events.filter((e) => e.type === 'nudge' && e.kind === 'open_items')).toHaveLength(2);
    expect(requests).toHaveLength(4);
    expect(lastUserBlocks(requests[2]!)[0]?.text).toContain('[>] #1: step 1');
  });

  it('ends incomplete at once when the model stops at an item it names as blocked, keeping every item', async () => {
    const blocked = toolUse('todo', {
      items: [
        { text: 'step 1', status: 'completed' },
        { text: 'step 2', status: 'pending' },
        { text: 'Blocked: the tests need a database that is not here', status: 'pending' },
      ],
    });
    const { result, requests, events } = await play([
      reply(plan('in_progress', 'pending')),
      reply(blocked),
      reply(text('Step 2 needs a database; I stopped there.')),
    ]);
    expect(result.status).toBe('incomplete');
    expect(result.reason).toBe('the model stopped at a blocker: the tests need a database that is not here');
    expect(result.todos.map((item) => item.text)).toEqual([
      'step 1',
      'step 2',
      'Blocked: the tests need a database that is not here',
    ]);
    expect(events.filter((e) => e.type === 'nudge')).toEqual([]);
    expect(requests).toHaveLength(3);
  });

  it('asks an empty end_turn to continue instead of ending', async () => {
    const { result, requests, violations } = await play([
      reply(plan('in_progress')),
      { content: [], stop_reason: 'end_turn' },
      reply(plan('completed')),
      reply(text('done')),
    ]);
    expect(violations).toEqual([]);
    expect(result.status).toBe('completed');
    expect(lastUserBlocks(requests[2]!).at(-1)?.text).toBe('Please continue with the task.');
  });

  it('answers a tool call cut off by max_tokens with an error and gives the next reply more room', async () => {
    const { result, requests, violations } = await play([
      reply(plan('in_progress')),
      { content: [toolUse('write_file', { path: 'big.txt' })], stop_reason: 'max_tokens' },
      reply(plan('completed')),
      reply(text('done')),
    ]);
    expect(violations).toEqual([]);
    const cut = lastUserBlocks(requests[2]!)[0];
    expect(cut).toMatchObject({ type: 'tool_result', is_error: true });
    expect(JSON.stringify(cut?.content)).toContain('cut off');
    expect(requests[2]!.body.max_tokens).toBeGreaterThan(requests[1]!.body.max_tokens);
    expect(result.status).toBe('completed');
  });

  it('drops whitespace-only text blocks before sending the reply back (the API refuses them)', async () => {
    const { result, violations } = await play([reply(text('\n\n'), plan('completed')), reply(text('done'))]);
    expect(violations).toEqual([]);
    expect(result.status).toBe('completed');
  });

  it('answers every tool call of a reply cut off after its tool calls, running the whole ones', async () => {
    const { requests, violations } = await play([
      { content: [plan('in_progress'), text('And now I will explain at length')], stop_reason: 'max_tokens' },
      reply(plan('completed')),
      reply(text('done')),
    ]);
    expect(violations).toEqual([]);
    expect(lastUserBlocks(requests[1]!)[0]).toMatchObject({ type: 'tool_result' });
    expect(lastUserBlocks(requests[1]!)[0]?.is_error).toBeUndefined();
  });

  it('keeps working when an observer throws', async () => {
    const { result } = await play([reply(plan('completed')), reply(text('done'))], {
      observers: [
        () => {
          throw new Error('the log is broken');
        },
      ],
    });
    expect(result.status).toBe('completed');
  });

  it('continues a pause_turn by sending the paused content back as is', async () => {
    const { result, requests, violations } = await play([
      reply(plan('completed')),
      { content: [text('Still thinking…')], stop_reason: 'pause_turn' },
      reply(text('done')),
    ]);
    expect(violations).toEqual([]);
    expect(requests[2]!.body.messages.at(-1)).toMatchObject({ role: 'assistant' });
    expect(result.status).toBe('completed');
  });

  it('ends as failed on a refusal', async () => {
    const { result } = await play([reply(plan('in_progress')), { content: [], stop_reason: 'refusal' }]);
    expect(result.status).toBe('failed');
    expect(result.reason).toContain('refusal');
  });

  it('ends cleanly when the context window is exceeded, either way the API says so', async () => {
    const stop = await play([
      reply(plan('in_progress')),
      { content: [text('…')], stop_reason: 'model_context_window_exceeded' },
    ]);
    expect(stop.result.status).toBe('incomplete');
    expect(stop.result.reason).toContain('context window');
    await ws.server?.close();
    const tooLong = await play([
      reply(plan('in_progress')),
      {
        error: {
          status: 400,
          type: 'invalid_request_error',
          message: 'prompt is too long: 210000 tokens > 200000 maximum',
        },
      },
    ]);
    expect(tooLong.result.status).toBe('incomplete');
    expect(tooLong.result.reason).toContain('context window');
  });

  it('fails fast with a readable reason on bad credentials', async () => {
    const { result, requests } = await play([
      { error: { status: 401, type: 'authentication_error', message: 'invalid x-api-key' } },
    ]);
    expect(result.status).toBe('failed');
    expect(result.reason).toContain('401');
    expect(requests).toHaveLength(1);
  });

  it('stops at max_turns as incomplete', async () => {
    const { result, requests } = await play(
      [reply(plan('in_progress', 'pending')), reply(bash('true')), reply(bash('true')), reply(bash('true'))],
      { maxTurns: 3 },
    );
    expect(result.status).toBe('incomplete');
    expect(result.reason).toBe('it reached the limit of 3 turns (max_turns)');
    expect(requests).toHaveLength(3);
  });

  it('stops as cancelled when its signal is aborted, without another model call', async () => {
    const controller = new AbortController();
    const { result, requests } = await play(
      [reply(plan('in_progress')), reply(bash('sleep 30')), reply(text('never'))],
      {
        signal: controller.signal,
        observers: [(event) => event.type === 'tool' && event.name === 'todo' && controller.abort()],
      },
    );
    expect(result.status).toBe('cancelled');
    expect(requests).toHaveLength(1);
  });

  it('keeps cache markers within the limit and reads the cached prefix on later requests', async () => {
    await writeFile(join(ws.dir, 'a.txt'), 'x'.repeat(5000));
    const { requests, violations, result } = await play([
      reply(plan('in_progress')),
      reply(toolUse('read_file', { path: 'a.txt' })),
      reply(bash('true')),
      reply(plan('completed')),
      reply(text('done')),
    ]);
    expect(violations).toEqual([]);
    const markers = (r: RecordedRequest) => JSON.stringify(r.body).split('"cache_control"').length - 1;
    expect(Math.max(...requests.map(markers))).toBeLessThanOrEqual(4);
    expect(requests.every((r) => markers(r) >= 2)).toBe(true);
    expect(result.usage.cache_read_input_tokens).toBeGreaterThan(0);
  });

  it('redacts secrets from tool output before the model sees them', async () => {
    const { requests } = await play(
      [
        reply(bash('echo token=ghp_abcdefghijklmnopqrstuvwxyz0123456789')),
        reply(plan('completed')),
        reply(text('done')),
      ],
      { redaction: new Redactor() },
    );
    const sent = JSON.stringify(requests[1]!.body.messages.at(-1));
    expect(sent).toContain('token=***');
    expect(sent).not.toContain('ghp_');
  });

  it('completes only once verify_command passes, and reports the round that passed', async () => {
    const { result, events } = await play(
      [
        reply(plan('completed')),
        reply(text('done')), // round 1 fails: no ok.txt
        reply(bash('touch ok.txt')),
        reply(text('fixed')), // the Fix item is still open: nudged
        reply(
          toolUse('todo', {
            items: [
              { text: 'step 1', status: 'completed' },
              { text: 'Fix: verify_command fails', status: 'completed' },
            ],
          }),
        ),
        reply(text('fixed, really')), // round 2 passes
      ],
      { verify: { command: 'test -f ok.txt', attempts: 3 } },
    );
    expect(result.status).toBe('completed');
    expect(result.reason).toBe('every todo item is completed and verify_command `test -f ok.txt` passed');
    expect(result.verify).toMatchObject({ passed: true, round: 2, attempts: 3 });
    const verifies = events.filter((event) => event.type === 'verify');
    expect(verifies.map((event) => event.report.passed)).toEqual([false, true]);
    expect(events.some((event) => event.type === 'nudge' && event.kind === 'verify_failed')).toBe(true);
  });

  it('at max_turns with every item completed, runs verify_command once more and says why it stopped', async () => {
    const { result } = await play([reply(plan('completed'))], {
      maxTurns: 1,
      verify: { command: 'exit 7', attempts: 3 },
    });
    expect(result.status).toBe('incomplete');
    expect(result.reason).toBe(
      'it reached the limit of 1 turns (max_turns), and verify_command `exit 7` still fails after 1 round',
    );
    expect(result.verify).toMatchObject({ passed: false, exitCode: 7 });
  });
});

/** A request's messages as content, without the cache markers that may move between requests. */
const unmarked = (request: RecordedRequest): string[] =>
  (request.body.messages as unknown[]).map((m) =>
    JSON.stringify(m, (k, v: unknown) => (k === 'cache_control' ? undefined : v)),
  );

const BOUND =
  'messages.1.content.0: Invalid `signature` in `thinking` block. The block is bound to a different conversation. Remove the block, or set `thinking.block_binding.prefix_mismatch_behavior` to "drop_block".';

describe('the agent loop on a model with preserved thinking (sonnet-5-5 mode)', () => {
  const work = (): ScriptStep[] => [
    reply(text('I will plan first.'), plan('in_progress', 'pending')),
    reply(bash('true')),
    reply(bash('true')),
    reply(bash('true')), // third turn without a todo call: the next request carries the reminder
    reply(plan('completed', 'in_progress')),
    reply(text('Now the second.'), bash('echo hi')),
    reply(plan('completed', 'completed')),
    reply(text('Both steps done.')),
  ];

  it('stays append-only: system and tools byte-identical, every message sent again unchanged, notes only at the end', async () => {
    const { result, requests, violations } = await play(work(), { reminderRounds: 3 }, 'sonnet-5-5');
    expect(violations).toEqual([]);
    expect(result.status).toBe('completed');
    expect(result.lastText).toBe('Both steps done.');
    const first = requests[0]!.body;
    for (const [i, request] of requests.entries()) {
      expect(JSON.stringify(request.body.system)).toBe(JSON.stringify(first.system));
      expect(JSON.stringify(request.body.tools)).toBe(JSON.stringify(first.tools));
      if (i > 0)
        expect(unmarked(request).slice(0, unmarked(requests[i - 1]!).length)).toEqual(
          unmarked(requests[i - 1]!),
        );
    }
    expect(requests.map(hasReminder).indexOf(true)).toBe(4);
    // Every assistant turn went back with its signed thinking, empty text included, as received.
    const assistant = requests.at(-1)!.body.messages.filter((m: { role: string }) => m.role === 'assistant');
    expect(
      assistant.every(
        (m: { content: { type: string; thinking?: string }[] }) =>
          m.content[0]!.type === 'thinking' && m.content[0]!.thinking === '',
      ),
    ).toBe(true);
    // Thinking models get room to think before a long tool call.
    expect(requests[0]!.body.max_tokens).toBe(32_000);
  });

  it('answers a bound-elsewhere 400 once with drop_block and its beta header, for the rest of the run', async () => {
    const script = work();
    script.splice(2, 0, apiError(400, 'invalid_request_error', BOUND));
    const { result, requests, violations, events } = await play(script, {}, 'sonnet-5-5');
    expect(violations).toEqual([]);
    expect(result.status).toBe('completed');
    const dropping = (r: RecordedRequest) =>
      r.body.thinking?.block_binding?.prefix_mismatch_behavior === 'drop_block' &&
      String(r.headers['anthropic-beta']).includes(BINDING_BETA);
    expect(requests.map(dropping)).toEqual(requests.map((_, i) => i >= 3));
    // The retry is the same request: no turn is lost or repeated.
    expect(unmarked(requests[3]!)).toEqual(unmarked(requests[2]!));
    expect(events.filter((e) => e.type === 'turn_start')).toHaveLength(8);
  });

  it('fails readably when the API refuses a thinking block a second time', async () => {
    const script = work();
    script.splice(
      2,
      0,
      apiError(400, 'invalid_request_error', BOUND),
      apiError(400, 'invalid_request_error', BOUND),
    );
    const { result } = await play(script, {}, 'sonnet-5-5');
    expect(result.status).toBe('failed');
    expect(result.reason).toContain('bound to a different conversation');
  });

  it('sends effort as output_config.effort, and not to a model that takes none', async () => {
    const server = await ws.serve([reply(text('a')), reply(text('b'))], {
      apiKey: KEY,
      mode: 'sonnet-5-5',
    });
    const notices: string[] = [];
    const turn = {
      system: 's',
      tools: [],
      messages: [{ role: 'user' as const, content: 'Hi' }],
      maxTokens: 100,
    };
    await new Model({ apiKey: KEY, baseURL: server.url, effort: 'low' }).send(turn);
    await new Model({
      apiKey: KEY,
      baseURL: server.url,
      model: 'claude-haiku-4-5',
      effort: 'low',
      onNotice: (m) => notices.push(m),
    }).send(turn);
    expect(server.violations).toEqual([]);
    expect(server.requests[0]!.body.output_config).toEqual({ effort: 'low' });
    expect(server.requests[1]!.body.output_config).toBeUndefined();
    expect(notices).toEqual(["claude-haiku-4-5 takes no effort setting; effort 'low' is not sent."]);
  });
});

describe('a plan-only run', () => {
  it('offers no tools that write, and ends as planned once the model has a list and stops', async () => {
    const { result, requests, violations } = await play(
      [reply(bash('ls')), reply(plan('pending', 'pending')), reply(text('The plan: two steps.'))],
      { planOnly: true },
    );
    expect(result.status).toBe('planned');
    expect(result.todos.map((item) => item.status)).toEqual(['pending', 'pending']);
    expect(requests).toHaveLength(3);
    const tools = (requests[0]!.body.tools as Array<{ name: string }>).map((tool) => tool.name);
    expect(tools).toEqual(['bash', 'read_file', 'todo']);
    expect(JSON.stringify(requests[0]!.body.messages[0])).toContain('This run only plans');
    expect(violations).toEqual([]);
  });

  it('asks for a plan when the model stops without one', async () => {
    const { result, requests } = await play(
      [reply(text('Looks easy.')), reply(plan('pending')), reply(text('One step.'))],
      { planOnly: true },
    );
    expect(result.status).toBe('planned');
    expect(JSON.stringify(requests[1]!.body.messages.at(-1))).toContain('You stopped without a plan');
  });
});

describe('the last look before delivery (the review option)', () => {
  const list = (...paths: string[]) => ({
    text: `Before delivery, the files that will be committed: ${paths.join(', ')}`,
    paths,
  });

  it('goes with the results of the todo call that completes the list, costing no turn of its own', async () => {
    let asked = 0;
    const review = async () => {
      asked++;
      return list('a.txt');
    };
    const { result, requests, events } = await play(
      [reply(plan('in_progress')), reply(plan('completed')), reply(text('Done.'))],
      { review },
    );
    expect(result.status).toBe('completed');
    expect(requests).toHaveLength(3);
    // Not while an item is open; with the completing call's results, after its tool_result.
    expect(JSON.stringify(requests[1]!.body.messages.at(-1))).not.toContain('Before delivery');
    const last = requests[2]!.body.messages.at(-1)!.content as Array<{ type: string; text?: string }>;
    expect(last[0]!.type).toBe('tool_result');
    expect(last.find((block) => block.type === 'text')?.text).toContain('a.txt');
    // Asked again as the run completes, and not shown: the model saw every file already.
    expect(asked).toBe(2);
    expect(events.filter((e) => e.type === 'nudge' && e.kind === 'review')).toHaveLength(1);
  });

  it('shows the list once more before completing when a file joined it since, and only once', async () => {
    const lists = [list('a.txt'), list('a.txt', 'scratch.log'), list('a.txt', 'scratch.log', 'more.log')];
    const review = async () => lists.shift() ?? list('a.txt', 'scratch.log', 'more.log', 'again.log');
    const { result, requests, events } = await play(
      [
        reply(plan('completed')),
        reply(bash('true')),
        reply(text('Done.')),
        reply(text('The list is right.')),
      ],
      { review },
    );
    expect(result.status).toBe('completed');
    expect(requests).toHaveLength(4);
    expect(JSON.stringify(requests[3]!.body.messages.at(-1))).toContain('scratch.log');
    expect(events.filter((e) => e.type === 'nudge' && e.kind === 'review')).toHaveLength(2);
  });

  it('shows nothing, and completes at once, when the run changed nothing', async () => {
    const { result, requests, events } = await play([reply(plan('completed')), reply(text('Done.'))], {
      review: async () => undefined,
    });
    expect(result.status).toBe('completed');
    expect(requests).toHaveLength(2);
    expect(events.some((e) => e.type === 'nudge' && e.kind === 'review')).toBe(false);
  });

  it('is asked before completing when no todo call completed the list in this run (a resumed list)', async () => {
    const { result, requests } = await play([reply(text('All done already.')), reply(text('Right.'))], {
      resumedTodos: [{ id: '1', text: 'step 1', activeForm: 'Doing step 1', status: 'completed' }],
      review: async () => list('a.txt'),
    });
    expect(result.status).toBe('completed');
    expect(requests).toHaveLength(2);
    expect(JSON.stringify(requests[1]!.body.messages.at(-1))).toContain('a.txt');
  });
});

describe('tools from outside (MCP servers)', () => {
  /** `count` tools of one server, the first `readOnly` of them read-only; each call is recorded. */
  function outside(count: number, readOnly = 0) {
    const calls: Array<{ name: string; input: unknown }> = [];
    const tools: OutsideTools['tools'] = Array.from({ length: count }, (_, i) => ({
      name: `mcp__docs__tool_${i}`,
      description: `[MCP server "docs", its description] Tool number ${i}.`,
      inputSchema: { type: 'object' as const, properties: { q: { type: 'string' } } },
      readOnly: i < readOnly,
      run: async (input: unknown) => {
        calls.push({ name: `mcp__docs__tool_${i}`, input });
        return `answer of tool ${i}`;
      },
    }));
    return {
      calls,
      toolset: {
        tools,
        servers: [`docs: ${count} tools`],
        refusal: (name: string) =>
          name.startsWith('mcp__docs__') ? `${name} is not offered: not in the configuration` : undefined,
      } satisfies OutsideTools,
    };
  }
  const toolNames = (request: RecordedRequest): string[] =>
    (request.body.tools as Array<{ name: string }>).map((tool) => tool.name);

  it('offers a few tools beside the built-in ones and names the server in the system prompt', async () => {
    const { toolset, calls } = outside(3);
    const { result, requests, violations } = await play(
      [
        reply(plan('in_progress'), toolUse('mcp__docs__tool_1', { q: 'x' })),
        reply(plan('completed')),
        reply(text('Done.')),
      ],
      { outside: toolset },
    );
    expect(violations).toEqual([]);
    expect(result.status).toBe('completed');
    expect(toolNames(requests[0]!)).toEqual([
      'bash',
      'read_file',
      'write_file',
      'edit_file',
      'todo',
      'mcp__docs__tool_0',
      'mcp__docs__tool_1',
      'mcp__docs__tool_2',
    ]);
    expect(JSON.stringify(requests[0]!.body.system)).toContain('MCP servers: the maintainer added tools');
    expect(JSON.stringify(requests[0]!.body.system)).toContain('- docs: 3 tools');
    expect(calls).toEqual([{ name: 'mcp__docs__tool_1', input: { q: 'x' } }]);
    const results = lastUserBlocks(requests[1]!).filter((block) => block.type === 'tool_result');
    expect(results[1]).toMatchObject({ content: 'answer of tool 1' });
  });

  it('offers a plan run only the tools marked read-only', async () => {
    const { toolset } = outside(4, 2);
    const { requests } = await play([reply(plan('pending')), reply(text('The plan.'))], {
      outside: toolset,
      planOnly: true,
    });
    expect(toolNames(requests[0]!).filter((name) => name.startsWith('mcp__'))).toEqual([
      'mcp__docs__tool_0',
      'mcp__docs__tool_1',
    ]);
  });

  it('past 30 tools, defers them behind the tool search, finds one and calls it, and keeps them out of the cached prefix', async () => {
    const { toolset, calls } = outside(50);
    const { result, requests, violations } = await play(
      [
        reply(plan('in_progress'), toolSearch('tool_42\\b'), toolUse('mcp__docs__tool_42', { q: 'y' })),
        reply(plan('completed')),
        reply(text('Done.')),
      ],
      { outside: toolset },
    );
    expect(violations).toEqual([]);
    expect(result.status).toBe('completed');
    const tools = requests[0]!.body.tools as Array<{ name: string; type?: string; defer_loading?: boolean }>;
    expect(tools.filter((tool) => tool.defer_loading).map((tool) => tool.name)).toHaveLength(50);
    expect(tools.at(-1)).toEqual({ type: 'tool_search_tool_regex_20251119', name: 'tool_search_tool_regex' });
    expect(JSON.stringify(requests[0]!.body.system)).toContain('find them with tool_search_tool_regex');
    expect(calls).toEqual([{ name: 'mcp__docs__tool_42', input: { q: 'y' } }]);
    // The search and its result went back as the model gave them, so the found tool stays in view.
    const replayed = requests[1]!.body.messages[1].content as Array<{ type: string }>;
    expect(replayed.map((block) => block.type)).toEqual([
      'tool_use',
      'server_tool_use',
      'tool_search_tool_result',
      'tool_use',
    ]);
  });

  it('loads every tool up front on a model without the tool search', async () => {
    const { toolset } = outside(40);
    const server = await ws.serve([reply(plan('completed')), reply(text('Nothing to do.'))], {
      apiKey: KEY,
    });
    await runAgent({
      task: 'Look around',
      model: new Model({ apiKey: KEY, baseURL: server.url, maxRetries: 0, model: 'claude-opus-4-1' }),
      workspace: ws.dir,
      outside: toolset,
    });
    expect(server.violations).toEqual([]);
    const tools = server.requests[0]!.body.tools as Array<{ name: string; defer_loading?: boolean }>;
    expect(tools).toHaveLength(45);
    expect(tools.some((tool) => tool.defer_loading)).toBe(false);
  });
});
