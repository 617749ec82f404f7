// What the model reads as background for a run: the issue (or pull request) and its conversation, then, on a
// pull request, its review threads. All of it data, never instructions.
import type { IssueComment } from '../api/issues.js';
import type { Permission } from '../api/access.js';
import { issueContext } from './issue-context.js';
import { reviewContext, type ReviewThread } from './review-threads.js';
import type { TriggerSource } from '../request/trigger.js';

export function runContext(
  trigger: TriggerSource,
  comments: readonly IssueComment[],
  threads: readonly ReviewThread[],
  permissions: ReadonlyMap<string, Permission>,
): string {
  const { origin } = trigger;
  const triggeredAt = origin.at;
  const issue = issueContext({
    number: trigger.issueNumber,
    title: trigger.issueTitle,
    body: trigger.issueBody,
    author: trigger.issueAuthor,
    authorAssociation: trigger.issueAuthorAssociation,
    isPullRequest: trigger.isPullRequest,
    comments,
    permissions,
    triggeredAt,
  });
  const asking =
    origin.kind === 'review_comment'
      ? { triggerCommentId: origin.id }
      : origin.kind === 'review'
        ? { askingReviewId: origin.id }
        : {};
  return issue + reviewContext(threads, { permissions, triggeredAt, ...asking });
}
