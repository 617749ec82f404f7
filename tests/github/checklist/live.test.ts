// The live checklist against the GitHub emulator over real HTTP: created at once, edited in place, a
// maintainer's edit merged rather than overwritten, made anew when deleted, and the run's end written last.
import { describe, expect, it } from 'vitest';
import type { AgentResult } from '../../../src/agent/events.js';
import type { TodoItem } from '../../../src/agent/todo/todos.js';
import { GitHubApi } from '../../../src/github/api/github-api.js';
import { LiveChecklist } from '../../../src/github/checklist/live.js';
import { parseAgentState } from '../../../src/github/checklist/state.js';
import { emptyUsage } from '../../../src/model/usage.js';
import { TEST_REPO, TEST_TOKEN, useEmulatorPerTest } from '../../support/github/per-test.js';

const startEmulator = useEmulatorPerTest();

const item = (id: number, text: string, status: TodoItem['status']): TodoItem => ({
  id: String(id),
  text,
  status,
});

async function open(earlier: readonly TodoItem[] = []) {
  const emu = await startEmulator({ issues: [{ number: 3, title: 'Tidy up', body: 'Please tidy.' }] });
  const api = new GitHubApi({ ...TEST_REPO, token: TEST_TOKEN, baseUrl: emu.url });
  const warnings: string[] = [];
  const checklist = new LiveChecklist({
    issues: api.issues,
    issueNumber: 3,
    items: earlier,
    initial: {
      task: 'Tidy up',
      runUrl: 'https://github.example/run/1',
      sandbox: 'root',
      resume: { issue: 3, base: 'main', runId: '1' },
      note: 'Continuing from the earlier list.',
    },
    repo: { serverUrl: 'https://github.example', owner: TEST_REPO.owner, repo: TEST_REPO.repo },
    startBranch: undefined,
    warn: (message) => warnings.push(message),
  });
  const comments = () => [...emu.state.comments.values()].filter((c) => c.issue_number === 3);
  return { emu, checklist, comments, warnings };
}

const result = (status: AgentResult['status'], todos: readonly TodoItem[]): AgentResult => ({
  status,
  reason: status === 'completed' ? 'every todo item is completed' : 'the model stopped with 1 open item',
  todos,
  lastText: 'Done.',
  turns: 4,
  toolCalls: 3,
  usage: emptyUsage(),
  costUsd: 0.01,
});

describe('the live checklist', () => {
  it('creates the comment at once, edits it in place, and writes the outcome and resume state last', async () => {
    const { emu, checklist, comments, warnings } = await open();
    checklist.observer({ type: 'todos', turn: 1, items: [item(1, 'Plan', 'in_progress')] });
    const done = [item(1, 'Plan', 'completed')];
    const body = await checklist.finish(result('completed', done), {
      pushedBranch: 'agent/issue-3-1',
      pr: { number: 9, url: 'https://github.example/pull/9' },
    });
    const [comment, ...others] = comments();
    expect(others).toEqual([]);
    expect(comment!.versions[0]).toContain('Continuing from the earlier list.');
    // The final body, but for the elapsed time it was rendered at.
    const timeless = (text: string) => text.replace(/ · \d+ s · /, ' · ');
    expect(timeless(comment!.body)).toBe(timeless(body));
    expect(body).toContain('✅ todo-agent finished:');
    expect(body).toContain(
      `https://github.example/${TEST_REPO.owner}/${TEST_REPO.repo}/tree/agent/issue-3-1`,
    );
    expect(parseAgentState(body)).toMatchObject({ branch: 'agent/issue-3-1', issue: 3, runId: '1' });
    expect(checklist.url).toContain('#issuecomment-');
    expect(warnings).toEqual([]);
    expect(emu.violations).toEqual([]);
  });

  it("hands a maintainer's edit to the loop's inbox once, as a list to take", async () => {
    const { emu, checklist, comments } = await open();
    const list = [item(1, 'Plan', 'in_progress'), item(2, 'Fix', 'pending')];
    checklist.observer({ type: 'todos', turn: 1, items: list });
    await expect.poll(() => comments().length).toBe(1);
    await expect.poll(() => comments()[0]!.body).toContain('- [ ] Fix');
    const [comment] = comments();
    // The maintainer ticks item 2 in the web editor; the look beside the delivery finds it.
    emu.editComment(comment!.id, comment!.body.replace('- [ ] Fix', '- [x] Fix'));
    checklist.readCommentBack();
    const taken: ReturnType<LiveChecklist['inbox']> = [];
    await expect.poll(() => taken.push(...checklist.inbox())).toBe(1);
    expect(taken[0]!(list).items?.map((i) => i.status)).toEqual(['in_progress', 'completed']);
    expect(taken[0]!(list).text).toContain('ticked #2 as completed');
    expect(checklist.inbox()).toEqual([]);
    await checklist.finish(result('incomplete', list), {});
    expect(emu.violations).toEqual([]);
  });

  it('makes a new comment when someone deleted it, and fails with the sentence of the error', async () => {
    const { emu, checklist, comments } = await open();
    checklist.observer({ type: 'todos', turn: 1, items: [item(1, 'Plan', 'in_progress')] });
    checklist.hold();
    // Wait for the first write to land, then delete the comment as a person would.
    await expect.poll(() => comments().length).toBe(1);
    const first = comments()[0]!;
    emu.state.comments.delete(first.id);
    await checklist.fail(new Error('the model service is down'));
    const [again, ...others] = comments();
    expect(others).toEqual([]);
    expect(again!.id).not.toBe(first.id);
    expect(again!.body).toContain('❌ todo-agent failed:');
    expect(again!.body).toContain('the model service is down');
    expect(checklist.url).toContain(String(again!.id));
    expect(emu.violations).toEqual([]);
  });
});
