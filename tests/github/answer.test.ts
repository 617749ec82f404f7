// Where the action answers a request it does not run, against the GitHub emulator: in the review thread the
// request was written in, else on the conversation.
import { describe, expect, it } from 'vitest';
import { answer } from '../../src/github/answer.js';
import { useApiPerTest } from '../support/github/per-test.js';
import { commentTrigger } from '../support/runner-env.js';

const apiFor = useApiPerTest();

describe('answer', () => {
  it("answers a conversation comment on the issue's conversation", async () => {
    const { api, emu } = await apiFor();
    await answer(api, commentTrigger(), 'Usage: …');
    expect([...emu.state.comments.values()].map((c) => [c.issue_number, c.body])).toEqual([[1, 'Usage: …']]);
    expect(emu.violations).toEqual([]);
  });

  it('answers a review comment in its own thread, not on the conversation', async () => {
    const { api, emu } = await apiFor({
      issues: [{ number: 2, title: 'Tidy up', pull_request: { head: 'agent/issue-1' } }],
    });
    const top = emu.addReviewComment(2, 'maintainer', {
      path: 'hello.py',
      line: 1,
      diffHunk: '@@ -1 +1 @@\n-a\n+b',
      body: 'Looks odd',
    });
    const asked = emu.addReviewComment(2, 'maintainer', { body: '/agent cancel', inReplyTo: top.id });
    await answer(
      api,
      {
        issueNumber: 2,
        origin: { kind: 'review_comment', id: asked.id, threadId: top.id, at: '2026-01-01T00:00:00Z' },
      },
      'Nothing to cancel.',
    );
    expect(emu.state.comments.size).toBe(0);
    const reply = [...emu.state.reviewComments.values()].at(-1)!;
    expect(reply).toMatchObject({ body: 'Nothing to cancel.', in_reply_to_id: top.id, pull_number: 2 });
    expect(emu.violations).toEqual([]);
  });
});
