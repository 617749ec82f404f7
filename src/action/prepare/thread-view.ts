// What the model sees of the thread besides its text: the pictures in it, and the map of the issues and pull
// requests it points to. Both are best effort: a failure leaves a line or nothing, never a failed run.
import type { GitHubApi } from '../../github/api/github-api.js';
import type { IssueComment } from '../../github/api/issues.js';
import type { Permission } from '../../github/api/access.js';
import type { SubmittedReview } from '../../github/api/pulls.js';
import { imageSources } from '../../github/thread/attachments.js';
import { humanComments } from '../../github/thread/issue-context.js';
import { pictureSources, threadPictures, type Picture } from '../../github/thread/pictures.js';
import { mentionedNumbers, referenceLines } from '../../github/thread/references.js';
import { askingId, type RunTrigger } from '../../github/request/trigger.js';
import type { ReviewThread } from '../../github/thread/review-threads.js';
import { log } from '../../runner/output.js';
import { errorSentence } from '../../text/error-sentence.js';

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
  /** On a pull request, its submitted reviews (sent with the first reads too); else none. */
  reviews: Promise<SubmittedReview[]>;
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
    readPictures(request).catch((error: unknown): Picture[] => {
      const why = errorSentence(error);
      log.warning(`The thread's pictures could not be read: ${why}`);
      // The model is told, as for any picture not shown: a screenshot it was pointed to is not silently gone.
      return [{ label: 'the thread', skipped: `its pictures could not be read (${why})` }];
    }),
    referenceLines(
      api.readOnly(),
      { owner: api.owner, repo: api.repo },
      mentionedNumbers(
        [
          trigger.request.task,
          trigger.issueTitle,
          trigger.issueBody,
          ...request.thread.map((c) => c.body),
          // On a pull request, its review threads are part of the thread the model reads.
          ...request.threads.flatMap((t) => t.comments).map((c) => c.body),
        ],
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

/**
 * The pictures of every place the thread is read from: the trigger (a comment, a review comment or a submitted
 * review), the conversation, the review comments and the submitted reviews before it, and the description.
 */
async function readPictures(request: Parameters<typeof threadView>[0]): Promise<Picture[]> {
  const { api, trigger } = request;
  const reviewComments = request.threads.flatMap((t) => t.comments);
  const reviews = await request.reviews;
  const { origin } = trigger;
  const asked =
    origin.kind === 'review_comment'
      ? reviewComments
      : origin.kind === 'review'
        ? reviews
        : request.allComments;
  const trig = asked.find((c) => c.id === askingId(trigger));
  // The thread the model reads holds the reviews that say something already: each place is read once.
  const read = new Set<IssueComment>(request.thread);
  const before = [...reviewComments, ...reviews].filter(
    (c) => c !== trig && !read.has(c) && c.createdAt <= origin.at,
  );
  const comments = [...request.thread, ...before];
  const sources = pictureSources({
    trigger: trig,
    comments,
    description: {
      html: await request.issueHtml,
      author: trigger.issueAuthor,
      kind: trigger.isPullRequest ? 'pull request' : 'issue',
    },
    permissions: await withAuthors(api, request.permissions, [...(trig ? [trig] : []), ...comments]),
  });
  return await threadPictures(sources, request.serverUrl, request.signal ? { signal: request.signal } : {});
}

/** The permissions known, and those of pictures' authors the thread's text did not need (the trigger's, reviewers'). */
async function withAuthors(
  api: GitHubApi,
  known: ReadonlyMap<string, Permission>,
  comments: readonly IssueComment[],
): Promise<ReadonlyMap<string, Permission>> {
  const withPictures = humanComments(comments).filter((c) => imageSources(c.bodyHtml ?? '').length > 0);
  const missing = [...new Set(withPictures.map((c) => c.user))].filter((login) => !known.has(login));
  if (missing.length === 0) return known;
  const asked = await Promise.all(
    missing.map(async (login) => [login, await api.access.permission(login)] as const),
  );
  return new Map([...known, ...asked]);
}
