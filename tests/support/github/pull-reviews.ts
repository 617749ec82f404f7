// Pull request reviews and review comments (comments on lines of the diff, in threads): listing them,
// replying in a thread, reacting to a comment, and the seeds tests write with.
import type { OperationMatch } from './openapi.js';
import { timestamp } from './json.js';
import { reviewCommentJson, reviewJson } from './pull-json.js';
import { renderedFields } from './rendered.js';
import {
  DOCS,
  HttpError,
  commentBody,
  intParam,
  notFound,
  paged,
  rejectLongBody,
  validationFailed,
} from './replies.js';
import type { HandlerTable, Reply } from './replies.js';
import { diffHunks, headRef, type DiffHunk } from './diff.js';
import { originGit } from './origin-git.js';
import { react, requirePull } from './state.js';
import type { Emu } from './state.js';
import type { PullState, ReviewCommentSeed, ReviewCommentState, ReviewSeed, ReviewState } from './types.js';

type Location = Pick<ReviewCommentState, 'path' | 'line' | 'start_line' | 'side' | 'diff_hunk' | 'commit_id'>;

function createReview(emu: Emu, pull: PullState, user: string, seed: ReviewSeed): ReviewState {
  const review: ReviewState = {
    id: emu.nextId.review++,
    pull_number: pull.number,
    body: seed.body,
    state: seed.state,
    user,
    commit_id: pull.head_sha,
    submitted_at: timestamp(),
  };
  emu.state.reviews.set(review.id, review);
  return review;
}

/** A comment in `reviewId`, or (as GitHub does for a lone comment or a reply) in a new COMMENTED review. */
function createReviewComment(
  emu: Emu,
  pull: PullState,
  user: string,
  fields: Location & { body: string; in_reply_to_id?: number; reviewId?: number },
): ReviewCommentState {
  const { reviewId, ...rest } = fields;
  const review = reviewId ?? createReview(emu, pull, user, { body: '', state: 'COMMENTED' }).id;
  const now = timestamp();
  const comment: ReviewCommentState = {
    id: emu.nextId.reviewComment++,
    pull_number: pull.number,
    pull_request_review_id: review,
    ...rest,
    user,
    reactions: [],
    created_at: now,
    updated_at: now,
  };
  emu.state.reviewComments.set(comment.id, comment);
  return comment;
}

/** The comment, when it is one on `pull` (any pull when unset); GitHub's 404 otherwise. */
function requireReviewComment(emu: Emu, id: number, pull?: PullState): ReviewCommentState {
  const comment = emu.state.reviewComments.get(id);
  if (!comment || (pull && comment.pull_number !== pull.number)) throw notFound();
  return comment;
}

const locationOf = ({ path, line, side, diff_hunk, commit_id }: ReviewCommentState): Location => ({
  path,
  line,
  side,
  diff_hunk,
  commit_id,
});

export function pullReviewHandlers(emu: Emu): HandlerTable {
  const pullOf = (match: OperationMatch) => requirePull(emu, intParam(match, 'pull_number'));
  const toJson = (comment: ReviewCommentState) => reviewCommentJson(emu, comment);
  return {
    'pulls/list-review-comments': ({ match, url, headers }) => {
      const pull = pullOf(match);
      const since = url.searchParams.get('since');
      const sort = url.searchParams.get('sort');
      const key = (c: ReviewCommentState) => (sort === 'updated' ? c.updated_at : c.created_at);
      const comments = [...emu.state.reviewComments.values()]
        .filter((c) => c.pull_number === pull.number && (!since || c.updated_at >= since))
        .sort((a, b) => key(a).localeCompare(key(b)) || a.id - b.id);
      if (sort && url.searchParams.get('direction') === 'desc') comments.reverse();
      return paged(comments, url, emu.api, (c) => ({
        ...toJson(c),
        ...renderedFields(emu, { headers, match }, c.body),
      }));
    },
    'pulls/get-review-comment': ({ match }) => ({
      status: 200,
      body: toJson(requireReviewComment(emu, intParam(match, 'comment_id'))),
    }),
    'pulls/create-reply-for-review-comment': ({ match, body }) => {
      const docs = `${DOCS}/pulls/comments#create-a-reply-for-a-review-comment`;
      const pull = pullOf(match);
      const parent = requireReviewComment(emu, intParam(match, 'comment_id'), pull);
      if (parent.in_reply_to_id !== undefined) {
        // GitHub documents replies to replies as unsupported: the id must be the thread's first comment.
        emu.violations.push(`reply to a reply: review comment ${parent.id} is not a thread's first comment`);
        const message = 'in_reply_to_id must be the id of a top-level review comment';
        throw validationFailed([{ resource: 'PullRequestReviewComment', code: 'custom', message }], docs);
      }
      const text = commentBody(body, docs, 'PullRequestReviewComment');
      const reply = createReviewComment(emu, pull, emu.actor, {
        ...locationOf(parent),
        body: text,
        in_reply_to_id: parent.id,
      });
      const json = toJson(reply);
      return { status: 201, body: json, headers: { location: json.url } };
    },
    // GitHub documents the vnd.github-commitcomment media types here (see ./rendered.ts).
    'pulls/list-reviews': ({ match, url, headers }) => {
      const pull = pullOf(match);
      const reviews = [...emu.state.reviews.values()].filter((r) => r.pull_number === pull.number);
      return paged(reviews, url, emu.api, (r) => ({
        ...reviewJson(emu, r),
        ...renderedFields(emu, { headers, match }, r.body),
      }));
    },
    'pulls/create-review': ({ match, body }) => submitReview(emu, pullOf(match), body as ReviewRequest),
    'pulls/list-comments-for-review': ({ match, url }) => {
      const pull = pullOf(match);
      const review = emu.state.reviews.get(intParam(match, 'review_id'));
      if (!review || review.pull_number !== pull.number) throw notFound();
      const comments = [...emu.state.reviewComments.values()].filter(
        (c) => c.pull_request_review_id === review.id,
      );
      return paged(comments, url, emu.api, toJson);
    },
    'reactions/create-for-pull-request-review-comment': ({ match, body }) => {
      const comment = requireReviewComment(emu, intParam(match, 'comment_id'));
      const { content } = body as { content: string };
      return react(emu, `review-comment:${comment.id}`, comment.reactions, content);
    },
  };
}

interface ReviewRequest {
  commit_id?: string;
  body?: string;
  event?: 'APPROVE' | 'REQUEST_CHANGES' | 'COMMENT';
  comments?: Array<{
    path: string;
    line?: number;
    side?: 'LEFT' | 'RIGHT';
    start_line?: number;
    body: string;
  }>;
}

/**
 * A submitted review with its comments, as GitHub takes it: each comment's lines must be lines of one hunk
 * of the pull request's diff (three lines of context) on the head's side, and `commit_id` the head.
 */
async function submitReview(emu: Emu, pull: PullState, request: ReviewRequest): Promise<Reply> {
  const docs = `${DOCS}/pulls/reviews#create-a-review-for-a-pull-request`;
  const refuse = (message: string) =>
    validationFailed([{ resource: 'PullRequestReview', code: 'custom', message }], docs);
  if (!request.event) {
    emu.violations.push('a review without `event` stays PENDING: not emulated');
    throw new HttpError(501, { message: 'Not emulated' });
  }
  const text = request.body ?? '';
  if (request.event !== 'APPROVE' && text.trim() === '') throw refuse('Body is required for this event');
  rejectLongBody('PullRequestReview', text, docs);
  const gitDir = emu.options.remoteDir;
  const comments = request.comments ?? [];
  if (comments.length > 0 && !gitDir) {
    emu.violations.push('not emulated: review comments without a remoteDir to diff');
    throw new HttpError(501, { message: 'Not emulated' });
  }
  const head = gitDir ? await originGit(gitDir, ['rev-parse', headRef(pull)]) : pull.head_sha;
  if (request.commit_id !== undefined && request.commit_id !== head)
    throw refuse('commit_id is not the head of this pull request');
  const hunks = gitDir && comments.length > 0 ? await diffHunks(gitDir, pull.base, headRef(pull)) : new Map();
  const located = comments.map((comment) => {
    const line = comment.line ?? 0;
    const hunk = (hunks.get(comment.path) ?? []).find((h: DiffHunk) => line >= h.from && line <= h.to);
    if (comment.side === 'LEFT' || !hunk)
      throw refuse('pull_request_review_thread.line must be part of the diff');
    if (comment.start_line !== undefined && !(comment.start_line >= hunk.from && comment.start_line < line))
      throw refuse('pull_request_review_thread.start_line must be part of the same hunk as the line');
    rejectLongBody('PullRequestReviewComment', comment.body, docs);
    return { comment, hunk: hunk as DiffHunk };
  });
  const state = { APPROVE: 'APPROVED', REQUEST_CHANGES: 'CHANGES_REQUESTED', COMMENT: 'COMMENTED' } as const;
  const review = createReview(emu, pull, emu.actor, { body: text, state: state[request.event] });
  review.commit_id = head;
  for (const { comment, hunk } of located)
    createReviewComment(emu, pull, emu.actor, {
      path: comment.path,
      line: comment.line!,
      ...(comment.start_line === undefined ? {} : { start_line: comment.start_line }),
      side: 'RIGHT',
      diff_hunk: hunk.text,
      commit_id: head,
      body: comment.body,
      reviewId: review.id,
    });
  return { status: 200, body: reviewJson(emu, review) };
}

/** A seed's pull request, or an error that names the test's mistake. */
function seededPull(emu: Emu, pullNumber: number, what: string): PullState {
  const pull = emu.state.pulls.find((p) => p.number === pullNumber);
  if (!pull) throw new Error(`${what}: no pull request #${pullNumber} in the emulator`);
  return pull;
}

/** Seeds a submitted review of a pull request by someone else. */
export function addReview(emu: Emu, pullNumber: number, user: string, seed: ReviewSeed): ReviewState {
  return createReview(emu, seededPull(emu, pullNumber, 'addReview'), user, seed);
}

/** Seeds a review comment on a line of a pull request, or with `inReplyTo` a reply in that thread. */
export function addReviewComment(
  emu: Emu,
  pullNumber: number,
  user: string,
  seed: ReviewCommentSeed,
): ReviewCommentState {
  const pull = seededPull(emu, pullNumber, 'addReviewComment');
  if (seed.reviewId !== undefined && emu.state.reviews.get(seed.reviewId)?.pull_number !== pull.number) {
    throw new Error(`addReviewComment: no review ${seed.reviewId} on pull request #${pullNumber}`);
  }
  const review = seed.reviewId === undefined ? {} : { reviewId: seed.reviewId };
  if (seed.inReplyTo !== undefined) {
    const parent = emu.state.reviewComments.get(seed.inReplyTo);
    if (!parent || parent.pull_number !== pull.number || parent.in_reply_to_id !== undefined) {
      throw new Error(`addReviewComment: ${seed.inReplyTo} is no thread's first comment on #${pullNumber}`);
    }
    const fields = { ...locationOf(parent), body: seed.body, in_reply_to_id: parent.id, ...review };
    return createReviewComment(emu, pull, user, fields);
  }
  const { path, line, diffHunk } = seed;
  if (path === undefined || line === undefined || diffHunk === undefined) {
    throw new Error("addReviewComment: a thread's first comment needs path, line and diffHunk");
  }
  const location = { path, line, side: seed.side ?? 'RIGHT', diff_hunk: diffHunk, commit_id: pull.head_sha };
  return createReviewComment(emu, pull, user, { ...location, body: seed.body, ...review });
}
