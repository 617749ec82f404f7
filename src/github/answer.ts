// Where the action answers a request it does not run (refused, usage, declined, cancel): in the review thread
// the request was written in, else on the issue's or pull request's conversation.
import type { GitHubApi } from './api/github-api.js';
import type { TriggerSource } from './request/trigger.js';

export async function answer(
  api: GitHubApi,
  { issueNumber, origin }: Pick<TriggerSource, 'issueNumber' | 'origin'>,
  body: string,
): Promise<void> {
  if (origin.kind === 'review_comment') await api.pulls.replyInThread(issueNumber, origin.threadId, body);
  else await api.issues.createComment(issueNumber, body);
}
