// Where the action answers a request it does not run (refused, usage, declined, cancel): in the review thread
// the request was written in, else on the issue's or pull request's conversation.
import type { GitHubApi } from './api.js';
import type { TriggerSource } from './trigger.js';

export async function answer(
  api: GitHubApi,
  trigger: Pick<TriggerSource, 'issueNumber' | 'threadId'>,
  body: string,
): Promise<void> {
  if (trigger.threadId !== undefined)
    await api.pulls.replyInThread(trigger.issueNumber, trigger.threadId, body);
  else await api.issues.createComment(trigger.issueNumber, body);
}
