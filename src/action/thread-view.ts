// What the model sees of the thread besides its text: the pictures in it, and the map of the issues and pull
// requests it points to. Both are best effort: a failure leaves a line or nothing, never a failed run.
import type { GitHubApi, IssueComment, Permission } from '../github/api.js';
import { pictureSources, threadPictures, type Picture } from '../github/thread/pictures.js';
import { mentionedNumbers, referenceLines } from '../github/thread/references.js';
import type { RunTrigger } from '../github/trigger.js';
import type { ReviewThread } from '../github/thread/review-threads.js';
import { log } from '../runner/output.js';
import { errorSentence } from '../text/error-sentence.js';

export interface ThreadView {
  pictures: Picture[];
  references: string[];
}

export async function threadView(request: {
  api: GitHubApi;
  serverUrl: string;
  trigger: RunTrigger;
  /** The issue's description as HTML (sent with the thread's first reads, thread-reads.ts). */
  issueHtml: Promise<string>;
  /** Every comment of the issue, the trigger's own included. */
  allComments: readonly IssueComment[];
  /** The comments the model reads (before the trigger, without it). */
  thread: readonly IssueComment[];
  /** On a pull request, its review threads (their comments are searched for pictures too). */
  threads: readonly ReviewThread[];
  permissions: ReadonlyMap<string, Permission>;
  signal?: AbortSignal;
}): Promise<ThreadView> {
  const { api, trigger } = request;
  const [pictures, references] = await Promise.all([
    readPictures(request).catch((error: unknown) => {
      log.warning(`The thread's pictures could not be read: ${errorSentence(error)}`);
      return [];
    }),
    referenceLines(
      api.readOnly(),
      { owner: api.owner, repo: api.repo },
      mentionedNumbers(
        [trigger.task, trigger.issueTitle, trigger.issueBody, ...request.thread.map((c) => c.body)],
        {
          owner: api.owner,
          repo: api.repo,
          serverUrl: request.serverUrl,
          self: trigger.issueNumber,
        },
      ),
    ),
  ]);
  const shown = pictures.filter((p) => p.image).length;
  if (pictures.length > 0)
    log.info(`Pictures from the thread: ${shown} shown, ${pictures.length - shown} not.`);
  return { pictures, references };
}

async function readPictures(request: Parameters<typeof threadView>[0]): Promise<Picture[]> {
  const { trigger } = request;
  const reviewComments = request.threads.flatMap((t) => t.comments);
  const asked = trigger.source === 'review_comment' ? reviewComments : request.allComments;
  const trig = trigger.source === 'review' ? undefined : asked.find((c) => c.id === trigger.commentId);
  const before = reviewComments.filter((c) => c.createdAt <= trigger.commentCreatedAt);
  const sources = pictureSources({
    trigger: trig,
    comments: [...request.thread, ...before],
    description: {
      html: await request.issueHtml,
      author: trigger.issueAuthor,
      kind: trigger.isPullRequest ? 'pull request' : 'issue',
    },
    permissions: request.permissions,
  });
  return await threadPictures(sources, request.serverUrl, request.signal ? { signal: request.signal } : {});
}
