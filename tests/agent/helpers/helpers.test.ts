import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../../src/agent/events.js';
import { runAgent } from '../../../src/agent/loop.js';
import type { AgentOptions } from '../../../src/agent/options.js';
import { Model } from '../../../src/model/client.js';
import { REMINDER_PREFIX } from '../../../src/agent/todo/reminder.js';
import { MAX_ANSWER_CHARS } from '../../../src/agent/helpers/brief.js';
import { reply, text, toolUse } from '../../support/anthropic/server.js';
import type { RecordedRequest, ScriptedResponse, ScriptStep } from '../../support/anthropic/server.js';
import { useAgentWorkspace } from '../../support/agent-workspace.js';

const KEY = 'sk-ant-test-key-0000000000000000';
const ws = useAgentWorkspace('helpers-', async (dir) => {
  await writeFile(join(dir, 'hello.txt'), 'hello from the workspace\n');
});

/** The first message's text: a helper's names the marker its prompt carries. */
const firstText = (request: RecordedRequest): string => {
  const first = request.body.messages[0].content;
  return typeof first === 'string' ? first : first[0].text;
};
const isHelper = (request: RecordedRequest) => firstText(request).includes('You are a helper of todo-agent');

/**
 * One script for the run and its helpers, whatever order their requests come in: each request is answered
 * from the queue of the session it belongs to (a helper's by the marker in its prompt).
 */
function routed(main: ScriptedResponse[], helpers: Record<string, ScriptedResponse[]>): ScriptStep[] {
  const total = main.length + Object.values(helpers).reduce((sum, steps) => sum + steps.length, 0);
  const step = (request: RecordedRequest): ScriptedResponse => {
    const marker = Object.keys(helpers).find((key) => isHelper(request) && firstText(request).includes(key));
    const queue = marker === undefined ? main : helpers[marker]!;
    return (
      queue.shift() ?? { error: { status: 400, type: 'invalid_request_error', message: 'script ran out' } }
    );
  };
  return Array.from({ length: total }, () => step);
}

async function play(script: ScriptStep[], options: Partial<AgentOptions> = {}) {
  const server = await ws.serve(script, { apiKey: KEY });
  const events: AgentEvent[] = [];
  const result = await runAgent({
    task: 'Survey hello.txt',
    model: new Model({ apiKey: KEY, baseURL: server.url, maxRetries: 0, model: 'claude-sonnet-4-5' }),
    workspace: ws.dir,
    tasks: { maxParallel: 3, maxTurns: 40 },
    ...options,
    observers: [(event) => events.push(event), ...(options.observers ?? [])],
  });
  return { result, events, requests: server.requests, violations: server.violations };
}

const list = (prefix: string, ...statuses: string[]) =>
  toolUse('todo', {
    items: statuses.map((status, i) => ({
      text: `${prefix} ${i + 1}`,
      status,
      activeForm: `Doing ${prefix} ${i + 1}`,
    })),
  });
const task = (marker: string, kind: 'explore' | 'edit' = 'explore') =>
  toolUse('task', { description: `Look at ${marker}`, prompt: `Find ${marker} in hello.txt`, kind });
const toolNames = (request: RecordedRequest): string[] =>
  request.body.tools.map((t: { name: string }) => t.name);
const lastUserTexts = (request: RecordedRequest): string[] => {
  const last = request.body.messages.at(-1).content;
  return typeof last === 'string'
    ? [last]
    : last.flatMap((block: { type: string; text?: string; content?: unknown }) =>
        block.type === 'text' ? [block.text!] : typeof block.content === 'string' ? [block.content] : [],
      );
};
const helperEvents = (events: AgentEvent[], session: string) =>
  events.flatMap((event) => (event.type === 'helper' && event.session === session ? [event.event] : []));
/** The order helpers started and ended in: `+helper-1`, `-helper-1`. */
const starts = (events: AgentEvent[]) =>
  events.flatMap((event) =>
    event.type === 'helper_start'
      ? [`+${event.session}`]
      : event.type === 'helper' && event.event.type === 'end'
        ? [`-${event.session}`]
        : [],
  );

describe('the task tool: helpers with lists of their own', () => {
  it("keeps the helper's list and reminder count apart from the parent's, and answers with the helper's words", async () => {
    const { result, events, requests, violations } = await play(
      routed(
        [
          reply(list('step', 'in_progress', 'pending')),
          reply(task('ALPHA')),
          reply(toolUse('read_file', { path: 'hello.txt' })),
          reply(toolUse('read_file', { path: 'hello.txt' })),
          reply(list('step', 'completed', 'completed')),
          reply(text('Done: the helper found ALPHA.')),
        ],
        {
          ALPHA: [
            reply(list('look', 'in_progress', 'pending')),
            reply(toolUse('read_file', { path: 'hello.txt' })),
            reply(toolUse('read_file', { path: 'hello.txt' })),
            reply(toolUse('read_file', { path: 'hello.txt' })),
            reply(list('look', 'completed', 'completed')),
            reply(text('ALPHA is on line 1 of hello.txt.')),
          ],
        },
      ),
      { reminderRounds: 2 },
    );
    expect(violations).toEqual([]);
    expect(result.status).toBe('completed');
    // The parent's list is its own, whatever the helper did with its own.
    expect(result.todos.map((item) => item.text)).toEqual(['step 1', 'step 2']);
    const parentLists = events.flatMap((event) => (event.type === 'todos' ? [event.items] : []));
    expect(parentLists.flat().every((item) => item.text.startsWith('step'))).toBe(true);
    const helperLists = helperEvents(events, 'helper-1').flatMap((e) =>
      e.type === 'todos' ? [e.items] : [],
    );
    expect(helperLists).toHaveLength(2);
    expect(helperLists.flat().every((item) => item.text.startsWith('look'))).toBe(true);
    // Nested under the item the parent had in progress.
    expect(events.find((event) => event.type === 'helper_start')).toMatchObject({
      session: 'helper-1',
      kind: 'explore',
      description: 'Look at ALPHA',
      under: '1',
    });

    const helperRequests = requests.filter(isHelper);
    const parentRequests = requests.filter((request) => !isHelper(request));
    expect(helperRequests).toHaveLength(6);
    expect(parentRequests).toHaveLength(6);
    // Read-only tools, no bash without a sandbox, and no task tool: helpers start no helpers.
    expect(toolNames(helperRequests[0]!).sort()).toEqual(['read_file', 'todo']);
    expect(toolNames(parentRequests[0]!)).toContain('task');
    expect(firstText(helperRequests[0]!)).toContain('Find ALPHA in hello.txt');

    // Each reminder comes on its own count and restates its own list.
    const reminders = (list: RecordedRequest[]) =>
      list.flatMap((request, index) =>
        lastUserTexts(request).some((t) => t.startsWith(REMINDER_PREFIX)) ? [index] : [],
      );
    // The helper: todo at turn 1, then two turns without one: reminded in its 4th request.
    expect(reminders(helperRequests)).toEqual([3]);
    const helperReminder = lastUserTexts(helperRequests[3]!).find((t) => t.startsWith(REMINDER_PREFIX))!;
    expect(helperReminder).toContain('look 1');
    expect(helperReminder).not.toContain('step 1');
    // The parent: todo at turn 1, the task at turn 2 and a read at turn 3 (the helper's six turns do not
    // count): reminded in its 4th request, not sooner.
    expect(reminders(parentRequests)).toEqual([3]);
    const parentReminder = lastUserTexts(parentRequests[3]!).find((t) => t.startsWith(REMINDER_PREFIX))!;
    expect(parentReminder).toContain('step 1');
    expect(parentReminder).not.toContain('look 1');

    // The task's result is the helper's answer, after one line on how it ended.
    const answer = lastUserTexts(parentRequests[2]!).join('\n');
    expect(answer).toContain('Helper "Look at ALPHA" (explore) ended completed');
    expect(answer).toContain('2 of 2 items done');
    expect(answer).toContain('ALPHA is on line 1 of hello.txt.');

    // The helper's tokens count in the run's usage: every response's, the parent's and the helper's.
    const responses = [
      ...events.filter((e) => e.type === 'response'),
      ...helperEvents(events, 'helper-1').filter((e) => e.type === 'response'),
    ];
    expect(responses).toHaveLength(12);
    const output = responses.reduce((sum, e) => sum + (e.type === 'response' ? e.usage.output_tokens : 0), 0);
    expect(result.usage.output_tokens).toBe(output);
    const helperEnd = helperEvents(events, 'helper-1').find((e) => e.type === 'end');
    expect(helperEnd?.type === 'end' && helperEnd.result.usage.output_tokens).toBeLessThan(output);
  });

  it('runs explore helpers side by side up to max_parallel_tasks, in the order they were asked for', async () => {
    const helper = (marker: string) => [reply(list(marker, 'completed')), reply(text(`${marker} found.`))];
    const { result, events, violations } = await play(
      routed(
        [
          reply(list('step', 'in_progress')),
          reply(task('ALPHA'), task('BRAVO'), task('CHARLIE')),
          reply(list('step', 'completed')),
          reply(text('Done.')),
        ],
        { ALPHA: helper('ALPHA'), BRAVO: helper('BRAVO'), CHARLIE: helper('CHARLIE') },
      ),
      { tasks: { maxParallel: 2, maxTurns: 40 } },
    );
    expect(violations).toEqual([]);
    expect(result.status).toBe('completed');
    const order = starts(events);
    // Two at once; the third waits for a slot.
    expect(order.slice(0, 2)).toEqual(['+helper-1', '+helper-2']);
    expect(order.indexOf('+helper-3')).toBeGreaterThan(
      Math.min(order.indexOf('-helper-1'), order.indexOf('-helper-2')),
    );
    // Each answer goes back as the result of its own call, in the order of the calls.
    const results = events.filter((e) => e.type === 'tool' && e.name === 'task');
    expect(results.map((e) => e.type === 'tool' && e.output.split('\n').at(-1))).toEqual([
      'ALPHA found.',
      'BRAVO found.',
      'CHARLIE found.',
    ]);
  });

  it('runs an edit helper alone: never beside another helper', async () => {
    const helper = (marker: string) => [reply(list(marker, 'completed')), reply(text(`${marker} done.`))];
    const { events, violations } = await play(
      routed(
        [
          reply(list('step', 'in_progress')),
          reply(task('ALPHA'), task('ECHO', 'edit'), task('CHARLIE')),
          reply(list('step', 'completed')),
          reply(text('Done.')),
        ],
        { ALPHA: helper('ALPHA'), ECHO: helper('ECHO'), CHARLIE: helper('CHARLIE') },
      ),
    );
    expect(violations).toEqual([]);
    expect(starts(events)).toEqual([
      '+helper-1',
      '-helper-1',
      '+helper-2',
      '-helper-2',
      '+helper-3',
      '-helper-3',
    ]);
  });

  it('stops a helper at task_max_turns and tells the parent so', async () => {
    const { result, events, violations } = await play(
      routed(
        [
          reply(list('step', 'in_progress')),
          reply(task('SLOW')),
          reply(list('step', 'completed')),
          reply(text('Done.')),
        ],
        {
          SLOW: [reply(list('slow', 'in_progress')), reply(toolUse('read_file', { path: 'hello.txt' }))],
        },
      ),
      { tasks: { maxParallel: 3, maxTurns: 2 } },
    );
    expect(violations).toEqual([]);
    expect(result.status).toBe('completed');
    const answer = events.find((e) => e.type === 'tool' && e.name === 'task');
    expect(answer?.type === 'tool' && answer.output).toContain(
      'ended incomplete: it reached the limit of 2 turns (max_turns)',
    );
  });

  it("counts the helpers' tokens against max_cost_usd", async () => {
    const costly: Partial<ScriptedResponse> = { usage: { input_tokens: 400_000 } };
    const { result, events } = await play(
      routed([reply(list('step', 'in_progress')), reply(task('COSTLY')), reply(text('never'))], {
        COSTLY: [{ ...reply(list('costly', 'in_progress')), ...costly }, reply(text('never'))],
      }),
      // One helper request of 400k input tokens (about $1.20 on Sonnet 4.5) passes the $1 cap.
      { maxCostUsd: 1 },
    );
    const end = helperEvents(events, 'helper-1').find((e) => e.type === 'end');
    expect(end?.type === 'end' && end.result.status).toBe('incomplete');
    expect(end?.type === 'end' && end.result.reason).toContain('max_cost_usd');
    expect(result.status).toBe('incomplete');
    expect(result.reason).toContain('max_cost_usd');
    expect(result.usage.input_tokens).toBeGreaterThanOrEqual(400_000);
  });

  it('cancels the helpers with the run', async () => {
    const controller = new AbortController();
    const { result, events } = await play(
      routed([reply(list('step', 'in_progress')), reply(task('STOP')), reply(text('never'))], {
        STOP: [reply(list('stop', 'in_progress')), reply(text('never'))],
      }),
      {
        signal: controller.signal,
        observers: [(event) => event.type === 'helper' && event.event.type === 'todos' && controller.abort()],
      },
    );
    expect(result.status).toBe('cancelled');
    expect(
      events.some(
        (e) => e.type === 'helper' && e.event.type === 'end' && e.event.result.status === 'cancelled',
      ),
    ).toBe(true);
  });

  it('has no task tool when max_parallel_tasks is 0, and cuts a long answer to size', async () => {
    const none = await play([reply(text('Nothing to do.'))], { tasks: { maxParallel: 0, maxTurns: 40 } });
    expect(toolNames(none.requests[0]!)).not.toContain('task');
    await ws.server?.close();
    const long = 'x'.repeat(MAX_ANSWER_CHARS + 500);
    const { events } = await play(
      routed(
        [
          reply(list('step', 'in_progress')),
          reply(task('LONG')),
          reply(list('step', 'completed')),
          reply(text('Done.')),
        ],
        {
          LONG: [reply(list('long', 'completed')), reply(text(long))],
        },
      ),
    );
    const answer = events.find((e) => e.type === 'tool' && e.name === 'task');
    expect(answer?.type === 'tool' && answer.output).toContain('500 more characters of the answer cut');
    expect(answer?.type === 'tool' && answer.output.length).toBeLessThan(MAX_ANSWER_CHARS + 500);
  });
});
