// The reads every run starts from, sent as soon as the event is known: beside the 👀, the permission check and
// the queue's first look rather than after them, so that they cost no round trip of their own before the first
// model request. The permissions of the thread's authors follow the comments at once (the second round trip).
import type { GitHubApi } from '../../github/api/github-api.js';
import type { IssueComment } from '../../github/api/issues.js';
import type { Permission } from '../../github/api/access.js';
import type { SubmittedReview } from '../../github/api/pulls.js';
import { humanComments } from '../../github/thread/issue-context.js';
import { pullThreads, threadAuthors, type ReviewThread } from '../../github/thread/review-threads.js';
import { askingId, type RunTrigger } from '../../github/request/trigger.js';

export interface ThreadReads {
  defaultBranch: Promise<string>;
  /** Every comment of the issue, the trigger's own included. */
  comments: Promise<IssueComment[]>;
  threads: Promise<ReviewThread[]>;
  /** The description as HTML, where its pictures are (a failure leaves the pictures out, not the run). */
  issueHtml: Promise<string>;
  /** On a pull request, its submitted reviews (their pictures are read too); else none. */
  reviews: Promise<SubmittedReview[]>;
  /** The thread as it stood when the maintainer asked: nothing posted after the trigger. */
  thread: Promise<IssueComment[]>;
  /** The permission of the issue's author and of each person whose comment the model reads. */
  permissions: Promise<Map<string, Permission>>;
}

/**
 * Starts the reads; each failure waits for whoever awaits it (a run the gate turns away never does, and
 * its failed read must not end the process as an unhandled rejection).
 */
export function readThread(api: GitHubApi, trigger: RunTrigger): ThreadReads {
  const comments = api.issues.comments(trigger.issueNumber);
  const threads = pullThreads(api, trigger);
  // The issue's author is known from the event: asked at once, beside the gate's check of the sender, so that
  // the authors' permissions after the comments cost no round trip when nobody else wrote (api.permission
  // answers each person once).
  api.access.permission(trigger.issueAuthor).catch(() => undefined);
  const reviews = trigger.isPullRequest ? api.pulls.reviews(trigger.issueNumber) : Promise.resolve([]);
  const thread = Promise.all([comments, reviews]).then(([all, submitted]) =>
    threadAsAsked(trigger, all, submitted),
  );
  const reads: ThreadReads = {
    defaultBranch: api.refs.defaultBranch(),
    comments,
    threads,
    issueHtml: api.issues.issueHtml(trigger.issueNumber),
    reviews,
    thread,
    permissions: Promise.all([thread, threads]).then(([asked, review]) =>
      authorPermissions(api, trigger.issueAuthor, asked, threadAuthors(review)),
    ),
  };
  for (const read of Object.values(reads)) (read as Promise<unknown>).catch(() => undefined);
  return reads;
}

/**
 * The conversation before the trigger, without it: the issue's comments and, on a pull request, the submitted
 * reviews that say something (a review's words are as much the thread as a comment's), oldest first.
 */
function threadAsAsked(
  trigger: RunTrigger,
  comments: IssueComment[],
  reviews: SubmittedReview[],
): IssueComment[] {
  const { origin } = trigger;
  const before = (kind: RunTrigger['origin']['kind']) => (c: IssueComment) =>
    !(origin.kind === kind && c.id === askingId(trigger)) && c.createdAt <= origin.at;
  const said = reviews.filter(before('review')).filter((review) => review.body.trim() !== '');
  return [...comments.filter(before('issue_comment')), ...said].sort((a, b) =>
    a.createdAt.localeCompare(b.createdAt),
  );
}

/** Asked once per person. */
async function authorPermissions(
  api: GitHubApi,
  issueAuthor: string,
  comments: readonly IssueComment[],
  others: readonly string[],
): Promise<Map<string, Permission>> {
  const logins = [
    ...new Set([issueAuthor, ...humanComments(comments).map((comment) => comment.user), ...others]),
  ];
  return new Map(
    await Promise.all(logins.map(async (login) => [login, await api.access.permission(login)] as const)),
  );
}
