// The checklist watch against the GitHub emulator: a conditional GET that finds nothing new costs a 304, a
// maintainer's edit is read once against the list the comment was written from, and a deleted comment is no edit.
import { describe, expect, it } from 'vitest';
import type { TodoItem } from '../../../src/agent/todo/todos.js';
import type { ListEdit } from '../../../src/github/checklist/edits.js';
import { renderChecklist } from '../../../src/github/checklist/render.js';
import { ChecklistWatch } from '../../../src/github/checklist/watch.js';
import { emptyUsage } from '../../../src/model/usage.js';
import { useApiPerTest } from '../../support/github/per-test.js';

const apiFor = useApiPerTest();
const items: TodoItem[] = [
  { id: '1', text: 'Read the code', status: 'completed' },
  { id: '2', text: 'Write the fix', status: 'pending' },
];
const body = renderChecklist({
  task: 'Tidy up',
  items,
  phase: 'working',
  turn: 1,
  usage: emptyUsage(),
  resume: { issue: 1, runId: '7' },
});

/** The checklist written on issue 1 through the API, and a watch that knows it. */
async function watched() {
  const { api, emu } = await apiFor();
  const seen: ListEdit[][] = [];
  const watch = new ChecklistWatch(api.issues, (edits) => seen.push(edits));
  const written = await api.issues.createComment(1, body);
  watch.wrote(written);
  return { emu, watch, seen, id: written.id };
}

describe('ChecklistWatch', () => {
  it('finds nothing, for a 304, while nobody edits the comment', async () => {
    const { emu, watch, seen } = await watched();
    expect(await watch.check()).toBe(false);
    expect(await watch.check()).toBe(false);
    // From the second look on (the first learns the ETag, if the write gave none), GitHub answers 304.
    expect(emu.calls.at(-1)).toMatchObject({ method: 'GET', status: 304 });
    expect(emu.notModified).toBeGreaterThan(0);
    expect(seen).toEqual([]);
  });

  it("hands a maintainer's edit over once, read against the written list", async () => {
    const { emu, watch, seen, id } = await watched();
    emu.editComment(id, body.replace('- [ ] Write the fix', '- [x] Write the fix'));
    expect(await watch.check()).toBe(true);
    expect(seen).toEqual([[{ kind: 'ticked', id: '2' }]]);
    expect(await watch.check()).toBe(false);
    expect(seen).toHaveLength(1);
    expect(emu.violations).toEqual([]);
  });

  it('reads no edit when the body changed only in its line ends', async () => {
    const { emu, watch, seen, id } = await watched();
    emu.editComment(id, body);
    expect(await watch.check()).toBe(false);
    expect(seen).toEqual([]);
  });

  it('takes a deleted comment for no edit, and looks nowhere before its first write', async () => {
    const { api, emu } = await apiFor();
    const idle = new ChecklistWatch(api.issues, () => {});
    expect(await idle.check()).toBe(false);
    expect(emu.calls).toEqual([]);
    const { emu: other, watch, id } = await watched();
    other.state.comments.delete(id);
    expect(await watch.check()).toBe(false);
  });
});
