// The reads a run starts from, against the GitHub emulator over real HTTP: the thread as it stood when the
// maintainer asked (the asking comment and anything later left out, a review's words counted as the thread's),
// the review threads of a pull request, and the permission of each person the model reads.
import { describe, expect, it } from 'vitest';
import { readThread } from '../../../src/action/prepare/thread-reads.js';
import type { RunTrigger } from '../../../src/github/request/trigger.js';
import { useApiPerTest } from '../../support/github/per-test.js';
import { commentTrigger } from '../../support/runner-env.js';

const apiFor = useApiPerTest();
const at = (minute: number) => `2026-01-02T00:${String(minute).padStart(2, '0')}:00Z`;

/** Pull request 2 with a conversation around the comment that asks (at minute 5), a review and a line comment. */
async function pullThread() {
  const { api, emu } = await apiFor({
    permissions: { maintainer: 'admin', writer: 'write', reviewer: 'read' },
    issues: [{ number: 2, title: 'Tidy', user: 'maintainer', pull_request: { head: 'agent/issue-1' } }],
  });
  const dated = <T extends { created_at: string; updated_at: string }>(item: T, minute: number) => {
    item.created_at = item.updated_at = at(minute);
    return item;
  };
  const before = dated(emu.addComment(2, 'writer', 'The parser is slow.'), 1);
  const asking = dated(emu.addComment(2, 'maintainer', '/agent speed it up'), 5);
  dated(emu.addComment(2, 'writer', 'Written after the request.'), 9);
  const review = emu.addReview(2, 'reviewer', { body: 'Please cache the tokens.', state: 'COMMENTED' });
  review.submitted_at = at(3);
  emu.addReview(2, 'reviewer', { body: '', state: 'APPROVED' }).submitted_at = at(4);
  emu.addReviewComment(2, 'writer', {
    path: 'parser.py',
    line: 4,
    diffHunk: '@@ -1 +1 @@\n-a\n+b',
    body: 'Here.',
  });
  const trigger: RunTrigger = {
    ...commentTrigger(2),
    kind: 'run',
    request: { kind: 'task', task: 'speed it up' },
    isPullRequest: true,
    issueAuthor: 'maintainer',
    origin: { kind: 'issue_comment', id: asking.id, at: at(5) },
  };
  return { api, emu, trigger, before };
}

describe('readThread', () => {
  it('reads the thread as it stood when asked, its review threads, and each reader’s permission', async () => {
    const { api, emu, trigger, before } = await pullThread();
    const reads = readThread(api, trigger);
    const thread = await reads.thread;
    expect(thread.map((c) => [c.user, c.body])).toEqual([
      ['writer', 'The parser is slow.'],
      ['reviewer', 'Please cache the tokens.'],
    ]);
    expect(thread[0]!.id).toBe(before.id);
    expect((await reads.comments).map((c) => c.body)).toContain('Written after the request.');
    const threads = await reads.threads;
    expect(threads.map((t) => [t.label, t.path])).toEqual([['T1', 'parser.py']]);
    expect(Object.fromEntries(await reads.permissions)).toEqual({
      maintainer: 'admin',
      writer: 'write',
      reviewer: 'read',
    });
    expect(await reads.defaultBranch).toBe('main');
    expect(typeof (await reads.issueHtml)).toBe('string');
    expect(emu.violations).toEqual([]);
  });

  it('reads no reviews or review threads on an issue', async () => {
    const { api, emu } = await apiFor();
    const trigger: RunTrigger = { ...commentTrigger(), kind: 'run', request: { kind: 'task', task: 'tidy' } };
    const reads = readThread(api, trigger);
    expect(await reads.reviews).toEqual([]);
    expect(await reads.threads).toEqual([]);
    expect(await reads.thread).toEqual([]);
    expect(emu.calls.some((call) => call.path.includes('/pulls/'))).toBe(false);
  });

  it('leaves a failed read to whoever awaits it, rather than to the process', async () => {
    const { api } = await apiFor();
    const trigger: RunTrigger = {
      ...commentTrigger(404),
      kind: 'run',
      request: { kind: 'task', task: 'tidy' },
    };
    const reads = readThread(api, trigger);
    await expect(reads.issueHtml).rejects.toThrow();
    await expect(reads.comments).rejects.toThrow();
  });
});
