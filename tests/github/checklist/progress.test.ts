// The checklist mirroring the agent's events: only a change of the list (or a verify round, or a helper's list)
// writes the comment; turns, tokens, compactions and the hosts the gate refused ride along with the next write.
import { describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../../src/agent/events.js';
import type { TodoItem } from '../../../src/agent/todo/todos.js';
import { ChecklistProgress } from '../../../src/github/checklist/progress.js';
import { parseAgentState } from '../../../src/github/checklist/state.js';
import { CommentWriter } from '../../../src/github/checklist/writer.js';
import { emptyUsage } from '../../../src/model/usage.js';
import { verifyReport } from '../../support/verify-report.js';

/** A progress whose writer hands every body it writes to `bodies` (no pacing). */
function progress() {
  const bodies: string[] = [];
  const writer = new CommentWriter(async (body) => void bodies.push(body), { minIntervalMs: 0 });
  const shown = new ChecklistProgress(writer, { task: 'Tidy up', resume: { issue: 1, runId: '7' } });
  return { shown, bodies, flush: () => shown.flush() };
}

const items: TodoItem[] = [{ id: '1', text: 'Tidy the parser', status: 'in_progress' }];
const turnEnd = (turn: number): AgentEvent => ({
  type: 'turn_end',
  turn,
  stopReason: 'tool_use',
  usage: emptyUsage(),
  total: { ...emptyUsage(), input_tokens: 1200 * turn },
  costUsd: 0.5,
});

describe('ChecklistProgress', () => {
  it('starts planning, and writes the list, now working, when the agent reports it', async () => {
    const { shown, bodies, flush } = progress();
    expect(shown.state).toMatchObject({ phase: 'planning', turn: 0, items: [] });
    expect(shown.body()).toContain('_planning…_');
    shown.observer({ type: 'todos', turn: 1, items });
    await flush();
    expect(bodies).toHaveLength(1);
    expect(bodies[0]).toContain('🔄 **Tidy the parser**');
    expect(bodies[0]).not.toContain('_planning…_');
    expect(parseAgentState(bodies[0]!)).toMatchObject({ issue: 1, runId: '7', items });
  });

  it('writes nothing for turns, compactions and refusals, and shows them with the next list', async () => {
    const { shown, bodies, flush } = progress();
    shown.observer(turnEnd(3));
    shown.observer({ type: 'compaction', turn: 3, kind: 'threshold', summarized: true, stopReason: null });
    shown.observer({ type: 'compaction', turn: 3, kind: 'threshold', summarized: false, stopReason: null });
    const refused = {
      type: 'network_refused',
      turn: 3,
      host: 'pkgs.example',
      port: 443,
      reason: 'not allowed',
    };
    shown.observer(refused as AgentEvent);
    shown.observer(refused as AgentEvent);
    await flush();
    expect(bodies).toEqual([]);
    expect(shown.state).toMatchObject({ turn: 3, costUsd: 0.5, compactions: 1 });
    expect(shown.state.blockedHosts).toEqual([{ host: 'pkgs.example', count: 2 }]);
    shown.observer({ type: 'todos', turn: 4, items });
    await flush();
    expect(bodies).toHaveLength(1);
    expect(bodies[0]).toContain('turn 4');
    expect(bodies[0]).toContain('1 compaction');
    expect(bodies[0]).toContain('pkgs.example');
  });

  it('shows the list through shownItems (a maintainer’s edits on top)', async () => {
    const { shown, bodies, flush } = progress();
    shown.shownItems = (list) => [...list, { id: '2', text: 'Added by hand', status: 'pending' }];
    shown.observer({ type: 'todos', turn: 1, items });
    await flush();
    expect(bodies[0]).toContain('- [ ] Added by hand');
  });

  it('writes a verify round and a helper’s list at once', async () => {
    const { shown, bodies, flush } = progress();
    shown.observer({ type: 'verify', turn: 2, report: verifyReport({ outputTail: '1 failing' }) });
    await flush();
    expect(bodies).toHaveLength(1);
    expect(bodies[0]).toContain('npm test');
    shown.observer({
      type: 'helper_start',
      turn: 2,
      session: 'h1',
      kind: 'explore',
      description: 'Find callers',
    });
    await flush();
    expect(bodies).toHaveLength(2);
    expect(bodies[1]).toContain('Find callers');
    // An event of a helper that changes nothing shown writes nothing.
    shown.observer({ type: 'helper', session: 'h1', event: { type: 'turn_start', turn: 1 } });
    await flush();
    expect(bodies).toHaveLength(2);
  });
});
