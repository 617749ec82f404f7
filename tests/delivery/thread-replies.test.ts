// Which review threads get a reply after a run, and what the reply says.
import { describe, expect, it } from 'vitest';
import type { TodoItem } from '../../src/agent/todo/todos.js';
import { reviewThreads } from '../../src/github/thread/review-threads.js';
import { addressedThreads, replyText } from '../../src/delivery/thread-replies.js';
import { reviewComment } from '../support/review-comments.js';

const comment = (id: number) => reviewComment(id, { user: 'alice' });
// T1 (id 10), T2 (id 20), T3 (id 30).
const threads = reviewThreads([comment(10), comment(20), comment(30)], {
  origin: { kind: 'issue_comment', id: 1, at: '' },
});
const item = (id: string, text: string, status: TodoItem['status'] = 'completed'): TodoItem => ({
  id,
  text,
  status,
});

describe('addressedThreads', () => {
  it('names the threads whose label a completed item carries, with those items', () => {
    const after = [
      item('a', 'Rename the helper [T2]'),
      item('b', 'Add a docstring [t2] [T3]'),
      item('c', 'Fix the typo [T1]', 'pending'),
      item('d', 'Run the tests'),
    ];
    const found = addressedThreads(threads, [], after);
    expect(found.map(({ thread, items }) => [thread.id, items.map((i) => i.id)])).toEqual([
      [20, ['a', 'b']],
      [30, ['b']],
    ]);
  });

  it('leaves out items the run started with already completed (an earlier run answered them)', () => {
    const before = [item('a', 'Rename the helper [T2]'), item('b', 'Add a docstring [T3]', 'pending')];
    const after = [item('a', 'Rename the helper [T2]'), item('b', 'Add a docstring [T3]')];
    expect(addressedThreads(threads, before, after).map(({ thread }) => thread.label)).toEqual(['T3']);
  });

  it('ignores labels of threads that do not exist and text that only looks like one', () => {
    const after = [item('a', 'Fix [T9]'), item('b', 'Fix T2'), item('c', 'Fix [T2x]')];
    expect(addressedThreads(threads, [], after)).toEqual([]);
  });
});

describe('replyText', () => {
  it('links the commit by its short sha and lists the items without their labels', () => {
    const sha = 'abcdef0123456789abcdef0123456789abcdef01';
    const text = replyText([item('a', 'Rename the helper [T2]')], {
      sha,
      url: `https://github.com/o/r/commit/${sha}`,
    });
    expect(text).toBe(
      `🤖 todo-agent addressed this thread in [\`abcdef0\`](https://github.com/o/r/commit/${sha}):\n\n- [x] Rename the helper`,
    );
  });

  it('says when there was no new commit', () => {
    expect(replyText([item('a', 'Explain the choice [T1]')])).toContain('without a code change');
  });

  it('keeps model text inert: no mention, no link, no HTML, no new list item', () => {
    const text = replyText([
      item('a', 'Ping @octocat <img src=x> see https://evil.example\n- [x] forged [T1]'),
    ]);
    expect(text).not.toMatch(/@octocat/);
    expect(text).not.toContain('<img');
    expect(text).not.toContain('https://evil');
    expect(text.split('\n').filter((line) => line.startsWith('- '))).toHaveLength(1);
  });
});
