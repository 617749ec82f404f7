import { describe, expect, it } from 'vitest';
import type { AgentEvent, AgentResult } from '../../../src/agent/events.js';
import type { TodoItem } from '../../../src/agent/todo/todos.js';
import { emptyUsage } from '../../../src/model/usage.js';
import { nextHelpers, type HelperView } from '../../../src/github/checklist/helpers.js';
import {
  MAX_BODY_CHARS,
  renderChecklist,
  type ChecklistState,
} from '../../../src/github/checklist/render.js';
import { readEdits } from '../../../src/github/checklist/edits.js';
import { parseAgentState } from '../../../src/github/checklist/state.js';

const PARENT: TodoItem[] = [
  { id: '1', text: 'Survey the parsers', status: 'in_progress', activeForm: 'Surveying the parsers' },
  { id: '2', text: 'Fix the parser', status: 'pending' },
];
const HELPER: TodoItem[] = [
  { id: '1', text: 'Read src/parse.ts', status: 'completed' },
  { id: '2', text: 'Find the callers', status: 'in_progress', activeForm: 'Finding the callers' },
  { id: '3', text: 'Write the answer', status: 'pending' },
];

const state = (helpers: readonly HelperView[], items: readonly TodoItem[] = PARENT): ChecklistState => ({
  task: 'Fix the parser',
  items,
  phase: 'working',
  turn: 3,
  usage: emptyUsage(),
  resume: {},
  helpers,
});

/** The helpers after each event, from none. */
const play = (events: AgentEvent[]): readonly HelperView[] =>
  events.reduce<readonly HelperView[]>((views, event) => nextHelpers(views, event) ?? views, []);

const start: AgentEvent = {
  type: 'helper_start',
  turn: 2,
  session: 'helper-1',
  kind: 'explore',
  description: 'Find the callers of parse',
  under: '1',
};
const todos: AgentEvent = {
  type: 'helper',
  session: 'helper-1',
  event: { type: 'todos', turn: 1, items: HELPER },
};
const end = (items: TodoItem[]): AgentEvent => ({
  type: 'helper',
  session: 'helper-1',
  event: {
    type: 'end',
    result: {
      status: 'completed',
      reason: 'done',
      todos: items,
      turns: 5,
      lastText: '',
      toolCalls: 4,
      usage: emptyUsage(),
      costUsd: 0,
    } satisfies AgentResult,
  },
});

describe("the helpers' lines in the checklist comment", () => {
  it("nests a running helper's list under the parent's item in progress, without checkboxes", () => {
    const body = renderChecklist(state(play([start, todos])));
    expect(body).toContain(
      [
        '- [ ] 🔄 **Surveying the parsers** — Survey the parsers',
        '  - 🔄 helper: **Find the callers of parse** (explore) · 1 of 3 done',
        '    - ✅ Read src/parse.ts',
        '    - 🔄 **Finding the callers**',
        '    - ⬜ Write the answer',
        '- [ ] Fix the parser',
      ].join('\n'),
    );
    // The maintainer's edits are read from the parent's list alone, and the saved state is the parent's.
    expect(readEdits(body, PARENT)).toEqual([]);
    expect(parseAgentState(body)?.items.map((item) => item.text)).toEqual(PARENT.map((item) => item.text));
  });

  it('folds a helper to one line when it ends', () => {
    const done = HELPER.map((item) => ({ ...item, status: 'completed' as const }));
    const body = renderChecklist(state(play([start, todos, end(done)])));
    expect(body).toContain(
      '- [ ] 🔄 **Surveying the parsers** — Survey the parsers\n' +
        '  - ✅ helper: **Find the callers of parse** (explore) · completed, 3 of 3 done, 5 turns\n' +
        '- [ ] Fix the parser',
    );
    expect(body).not.toContain('Read src/parse.ts');
  });

  it("shows a helper started with no item in progress after the parent's list", () => {
    const { under: _under, ...loose } = start as Extract<AgentEvent, { type: 'helper_start' }>;
    const body = renderChecklist(state(play([loose, todos])));
    expect(body).toMatch(/- \[ \] Fix the parser\n\n- 🔄 helper: \*\*Find the callers of parse\*\*/);
  });

  it("ignores another session's events and the helpers' other events", () => {
    const views = play([start]);
    expect(nextHelpers(views, { ...todos, session: 'helper-9' } as AgentEvent)).toBeUndefined();
    expect(
      nextHelpers(views, { type: 'helper', session: 'helper-1', event: { type: 'turn_start', turn: 1 } }),
    ).toBeUndefined();
    expect(nextHelpers(views, { type: 'todos', turn: 1, items: PARENT })).toBeUndefined();
  });

  it("folds the running helpers' lists first near GitHub's comment limit, before any item is shortened", () => {
    const long = (n: number, prefix: string): TodoItem[] =>
      Array.from({ length: 20 }, (_, i) => ({
        id: String(i + 1),
        text: `${prefix} ${i + 1} ${'x'.repeat(n)}`,
        status: 'pending' as const,
      }));
    // Twenty parent items of 450 characters fit; eight helpers' lists of 20 such items each do not.
    const helpers: HelperView[] = Array.from({ length: 8 }, (_, i) => ({
      session: `helper-${i + 1}`,
      kind: 'explore',
      description: `Survey part ${i + 1}`,
      under: '1',
      items: long(450, `part ${i + 1} item`),
    }));
    const items = long(450, 'step');
    const expanded = renderChecklist({ ...state([]), items }).length + 8 * 20 * 460;
    expect(expanded).toBeGreaterThan(MAX_BODY_CHARS);
    const body = renderChecklist(state(helpers, items));
    expect(body.length).toBeLessThanOrEqual(MAX_BODY_CHARS);
    expect(body).toContain('  - 🔄 helper: **Survey part 8** (explore) · 0 of 20 done');
    expect(body).not.toContain('part 1 item 1 ');
    // The parent's items keep their whole text.
    expect(body).toContain(items[19]!.text);
  });
});
