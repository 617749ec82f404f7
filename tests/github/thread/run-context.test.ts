// What the model reads as background for a run, from the trigger's own record of where it was asked: the
// issue and its conversation, then the review threads, with the asking comment left out of its thread (its
// text is the task) and a review's own comments shown whenever they were written.
import { describe, expect, it } from 'vitest';
import type { ReviewComment } from '../../../src/github/api/pulls.js';
import { runContext } from '../../../src/github/thread/run-context.js';
import { reviewThreads } from '../../../src/github/thread/review-threads.js';
import type { TriggerOrigin } from '../../../src/github/request/trigger.js';
import { reviewComment } from '../../support/review-comments.js';
import { commentTrigger } from '../../support/runner-env.js';

const ASKED_AT = '2026-01-02T00:00:00Z';
const comment = (id: number, body: string, at: string, more: Partial<ReviewComment> = {}) =>
  reviewComment(id, { body, createdAt: at, updatedAt: at, line: 3, ...more });

const lineComments = [
  comment(10, 'This name is unclear.', '2026-01-01T00:00:00Z'),
  comment(11, '/agent rename it', ASKED_AT, { inReplyTo: 10, reviewId: 7 }),
  comment(12, 'Also this line, from the same review.', '2026-01-03T00:00:00Z', { line: 9, reviewId: 7 }),
];

/** The context a pull request run asked from `origin` reads. */
function contextFrom(origin: TriggerOrigin): string {
  const trigger = { ...commentTrigger(4), isPullRequest: true, issueTitle: 'Rename greet', origin };
  const conversation = [comment(20, 'Please keep the old name working.', '2026-01-01T12:00:00Z')];
  return runContext(
    trigger,
    conversation,
    reviewThreads(lineComments, { origin }),
    new Map([['maintainer', 'admin']]),
  );
}

describe('runContext', () => {
  it('reads the pull request and its conversation, then its threads without the comment that asked', () => {
    const text = contextFrom({ kind: 'review_comment', id: 11, threadId: 10, at: ASKED_AT });
    expect(text).toContain('Rename greet');
    expect(text).toContain('Please keep the old name working.');
    expect(text).toContain('This name is unclear.');
    expect(text).not.toContain('/agent rename it');
    // Written after the request, in no asking review: not shown.
    expect(text).not.toContain('Also this line');
    expect(text.indexOf('Please keep the old name working.')).toBeLessThan(
      text.indexOf('This name is unclear.'),
    );
  });

  it("shows the asking review's comments, whenever they were written", () => {
    const text = contextFrom({ kind: 'review', id: 7, at: ASKED_AT });
    expect(text).toContain('Also this line, from the same review.');
    expect(text).toContain('/agent rename it');
  });

  it('reads no review threads on an issue conversation', () => {
    const trigger = commentTrigger();
    const text = runContext(trigger, [], [], new Map());
    expect(text).toContain(trigger.issueTitle);
    expect(text).not.toContain('review_threads');
  });
});
