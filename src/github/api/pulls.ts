// Pull requests and their reviews: the head a run works on, the review threads it answers, the pull it opens.
import { statusOf, type RepoScope } from './octokit.js';
import type { Access } from './access.js';
import { commentOf, type IssueComment } from './issues.js';

/** A review comment on a pull request's line (or file), as the action reads it. */
export interface ReviewComment extends IssueComment {
  /** The comment it answers; absent on the comment that starts a thread. */
  inReplyTo?: number;
  reviewId?: number;
  path: string;
  /** The line commented on (the last of a range) in the current diff, or the original one when outdated. */
  line?: number;
  startLine?: number;
  /** The comment's line is no longer in the pull request's diff. */
  outdated?: boolean;
  diffHunk: string;
}

/** A submitted review of a pull request: its body is a comment of the conversation, dated when submitted. */
export interface SubmittedReview extends IssueComment {
  /** APPROVED, CHANGES_REQUESTED, COMMENTED or DISMISSED. */
  state: string;
}

/** A comment a review puts on lines of the pull request's diff (the head's side). */
export interface ReviewLineComment {
  path: string;
  line: number;
  startLine?: number;
  body: string;
}

export interface OpenPull {
  number: number;
  htmlUrl: string;
  /** It was open already (an earlier run's, or a person's), rather than opened now. */
  reused: boolean;
  /** Opened by this action (now or by an earlier run), so its description may be replaced. */
  ours: boolean;
}

/**
 * The rendered body (body_html beside body and body_text) of a pull request's reviews and review comments:
 * GitHub's REST docs for these endpoints list the `vnd.github-commitcomment` media types, not the
 * `vnd.github` ones of issues and issue comments (https://docs.github.com/rest/pulls/reviews#list-reviews-for-a-pull-request,
 * https://docs.github.com/rest/pulls/comments#list-review-comments-on-a-pull-request). Octokit's
 * `mediaType.format` would write `vnd.github.v3.full+json`, so the header is given whole.
 */
const REVIEW_BODY_FULL = { accept: 'application/vnd.github-commitcomment.full+json' } as const;

export class Pulls {
  /** `access` tells whether this action opened a pull request found open, so that it may rewrite it. */
  constructor(
    readonly scope: RepoScope,
    private readonly access: Access,
  ) {}

  get #repo(): { owner: string; repo: string } {
    return { owner: this.scope.owner, repo: this.scope.repo };
  }

  /** What every page of a pull request's review comments or reviews is asked with: full pages, bodies rendered. */
  #allPages(pullNumber: number) {
    return { ...this.#repo, pull_number: pullNumber, per_page: 100, headers: REVIEW_BODY_FULL };
  }

  /**
   * The head branch of a pull request (for a run triggered on a PR), the repository it is in (a fork's, or
   * `(deleted fork)` in words with `deleted` set), and who opened it.
   */
  async pullHead(pullNumber: number): Promise<{
    ref: string;
    repo: string;
    /** The head's repository is gone: GitHub answers `head.repo: null` once a fork is deleted. */
    deleted: boolean;
    base: string;
    sameRepo: boolean;
    body: string;
    author: string;
    /** A fork's head: its author lets people with push access here push to it ("Allow edits by maintainers"). */
    maintainerCanModify: boolean;
  }> {
    const { data } = await this.scope.octokit.rest.pulls.get({ ...this.#repo, pull_number: pullNumber });
    const repo = data.head.repo?.full_name ?? '(deleted fork)';
    return {
      ref: data.head.ref,
      repo,
      deleted: !data.head.repo,
      base: data.base.ref,
      sameRepo: repo.toLowerCase() === `${this.scope.owner}/${this.scope.repo}`.toLowerCase(),
      body: data.body ?? '',
      author: data.user?.login ?? 'ghost',
      maintainerCanModify: data.maintainer_can_modify === true,
    };
  }

  /** The review comments on a pull request's lines, oldest first. */
  async reviewComments(pullNumber: number): Promise<ReviewComment[]> {
    const { octokit } = this.scope;
    const all = await octokit.paginate(octokit.rest.pulls.listReviewComments, this.#allPages(pullNumber));
    return all.map((comment) => ({
      ...commentOf(comment),
      ...(comment.in_reply_to_id ? { inReplyTo: comment.in_reply_to_id } : {}),
      ...(comment.pull_request_review_id ? { reviewId: comment.pull_request_review_id } : {}),
      path: comment.path,
      ...lineOf(comment),
      diffHunk: comment.diff_hunk,
    }));
  }

  /** The pull request's submitted reviews (pending ones have no date), oldest first, with rendered bodies. */
  async reviews(pullNumber: number): Promise<SubmittedReview[]> {
    const { octokit } = this.scope;
    const all = await octokit.paginate(octokit.rest.pulls.listReviews, this.#allPages(pullNumber));
    return all.flatMap((review) =>
      review.submitted_at
        ? [
            {
              ...commentOf({ ...review, created_at: review.submitted_at, updated_at: review.submitted_at }),
              state: review.state,
            },
          ]
        : [],
    );
  }

  /** Replies in a review thread, given its top comment (GitHub takes no reply to a reply). */
  async replyInThread(pullNumber: number, topCommentId: number, body: string): Promise<{ id: number }> {
    const { data } = await this.scope.octokit.rest.pulls.createReplyForReviewComment({
      ...this.#repo,
      pull_number: pullNumber,
      comment_id: topCommentId,
      body,
    });
    return { id: data.id };
  }

  /**
   * Opens a pull request, or returns the open one that already exists for the branch. It asks to create
   * first, and looks for the open one only when GitHub refuses (422: one already exists), so that a fresh
   * branch, the usual case, costs one round trip. `ours` says whether this action (an earlier run) opened
   * it, so that its description may be rewritten: a description a person wrote is left alone.
   */
  async openPull(request: {
    head: string;
    base: string;
    title: string;
    body: string;
    draft?: boolean;
  }): Promise<OpenPull> {
    try {
      const { data } = await this.scope.octokit.rest.pulls.create({ ...this.#repo, ...request });
      return { number: data.number, htmlUrl: data.html_url, reused: false, ours: true };
    } catch (error) {
      const existing = statusOf(error) === 422 ? await this.findOpenPull(request.head) : undefined;
      if (!existing) throw error;
      return existing;
    }
  }

  /** The open pull request from a branch of this repository, if there is one. */
  async findOpenPull(head: string): Promise<OpenPull | undefined> {
    const { data } = await this.scope.octokit.rest.pulls.list({
      ...this.#repo,
      head: `${this.scope.owner}:${head}`,
      state: 'open',
    });
    const found = data[0];
    if (!found) return undefined;
    const author = { user: found.user?.login ?? 'ghost', userType: found.user?.type ?? 'User' };
    return {
      number: found.number,
      htmlUrl: found.html_url,
      reused: true,
      ours: await this.access.wroteIt(author),
    };
  }

  /**
   * Submits one review of the pull request at `commitId` (a COMMENT: it neither approves nor blocks), with
   * comments on lines of its diff's right side (`startLine` for a range).
   */
  async submitReview(
    pullNumber: number,
    review: { commitId: string; body: string; comments: ReviewLineComment[] },
  ): Promise<{ id: number; htmlUrl: string }> {
    const { data } = await this.scope.octokit.rest.pulls.createReview({
      ...this.#repo,
      pull_number: pullNumber,
      commit_id: review.commitId,
      event: 'COMMENT',
      body: review.body,
      comments: review.comments.map(({ path, line, startLine, body }) => ({
        path,
        line,
        side: 'RIGHT',
        ...(startLine !== undefined && startLine < line
          ? { start_line: startLine, start_side: 'RIGHT' }
          : {}),
        body,
      })),
    });
    return { id: data.id, htmlUrl: data.html_url };
  }

  async updatePullBody(pullNumber: number, body: string): Promise<void> {
    await this.scope.octokit.rest.pulls.update({ ...this.#repo, pull_number: pullNumber, body });
  }
}

/** Where a review comment sits: its line, or its original line when the diff has moved on. */
function lineOf(comment: {
  line?: number | null;
  original_line?: number | null;
  start_line?: number | null;
}): Pick<ReviewComment, 'line' | 'startLine' | 'outdated'> {
  const line = comment.line ?? comment.original_line ?? undefined;
  return {
    ...(line === undefined ? {} : { line }),
    ...(comment.start_line ? { startLine: comment.start_line } : {}),
    ...(comment.line == null && line !== undefined ? { outdated: true } : {}),
  };
}
