// Pull request JSON shaped like GitHub's: the pull (simple and full), its head and base branches, its
// reviews and the review comments on lines of its diff.
import {
  WEB,
  authorAssociation,
  nodeId,
  reactionRollup,
  repositoryJson,
  stableNumber,
  userJson,
} from './json.js';
import type { Ctx } from './json.js';
import type { PullState, ReviewCommentState, ReviewState } from './types.js';

/**
 * A branch of the repository, or (`fork`) of its fork of the same name, which is public; a deleted fork's
 * repository is `null`, as GitHub answers it.
 */
function branchJson(ctx: Ctx, ref: string, sha: string, fork?: PullState['fork']) {
  const forkOwner = fork?.owner;
  const owner = forkOwner ?? ctx.owner;
  const repo = forkOwner
    ? fork.deleted
      ? null
      : { ...repositoryJson({ ...ctx, owner }), fork: true }
    : repositoryJson(ctx);
  return {
    label: `${owner}:${ref}`,
    ref,
    sha,
    user: userJson(ctx, owner, forkOwner ? 'User' : 'Organization'),
    repo,
  };
}

/** A pull request's conversation comments and line comments. */
export interface PullCounts {
  comments: number;
  reviewComments: number;
}

/** `full` adds the fields only the single-PR endpoints return (pull-request vs pull-request-simple). */
export function pullJson(ctx: Ctx, pull: PullState, counts: PullCounts, full: boolean) {
  const repoUrl = `${ctx.api}/repos/${ctx.owner}/${ctx.repo}`;
  const url = `${repoUrl}/pulls/${pull.number}`;
  const issueUrl = `${repoUrl}/issues/${pull.number}`;
  const simple = {
    url,
    id: stableNumber(`pull:${pull.number}`),
    node_id: nodeId('PR', `${ctx.owner}/${ctx.repo}!${pull.number}`),
    html_url: pull.html_url,
    diff_url: `${pull.html_url}.diff`,
    patch_url: `${pull.html_url}.patch`,
    issue_url: issueUrl,
    commits_url: `${url}/commits`,
    review_comments_url: `${url}/comments`,
    review_comment_url: `${repoUrl}/pulls/comments{/number}`,
    comments_url: `${issueUrl}/comments`,
    statuses_url: `${repoUrl}/statuses/${pull.head_sha}`,
    number: pull.number,
    state: pull.state,
    locked: false,
    title: pull.title,
    user: userJson(ctx, pull.user),
    body: pull.body,
    labels: [],
    milestone: null,
    active_lock_reason: null,
    created_at: pull.created_at,
    updated_at: pull.created_at,
    closed_at: null,
    merged_at: null,
    merge_commit_sha: null,
    assignee: null,
    assignees: [],
    requested_reviewers: [],
    requested_teams: [],
    head: branchJson(ctx, pull.head, pull.head_sha, pull.fork),
    base: branchJson(ctx, pull.base, pull.base_sha),
    _links: {
      self: { href: url },
      html: { href: pull.html_url },
      issue: { href: issueUrl },
      comments: { href: `${issueUrl}/comments` },
      review_comments: { href: `${url}/comments` },
      review_comment: { href: `${repoUrl}/pulls/comments{/number}` },
      commits: { href: `${url}/commits` },
      statuses: { href: `${repoUrl}/statuses/${pull.head_sha}` },
    },
    author_association: authorAssociation(ctx, pull.user),
    auto_merge: null,
    draft: pull.draft,
  };
  if (!full) return simple;
  return {
    ...simple,
    merged: false,
    mergeable: null,
    rebaseable: null,
    mergeable_state: 'unknown',
    merged_by: null,
    comments: counts.comments,
    review_comments: counts.reviewComments,
    maintainer_can_modify: pull.fork?.maintainer_can_modify ?? false,
    commits: 1,
    additions: 0,
    deletions: 0,
    changed_files: 0,
  };
}

/** The line of the diff a comment sits on, counted from its hunk's `@@` header (the hunk ends on it). */
function diffPosition(diffHunk: string): number {
  return Math.max(diffHunk.split('\n').length - 1, 1);
}

/** Fits both `pull-request-review-comment` (pull and comment endpoints) and `review-comment` (a review's). */
export function reviewCommentJson(ctx: Ctx, comment: ReviewCommentState) {
  const repoUrl = `${ctx.api}/repos/${ctx.owner}/${ctx.repo}`;
  const url = `${repoUrl}/pulls/comments/${comment.id}`;
  const pullUrl = `${repoUrl}/pulls/${comment.pull_number}`;
  const htmlUrl = `${WEB}/${ctx.owner}/${ctx.repo}/pull/${comment.pull_number}#discussion_r${comment.id}`;
  const position = diffPosition(comment.diff_hunk);
  return {
    url,
    pull_request_review_id: comment.pull_request_review_id,
    id: comment.id,
    node_id: nodeId('PRRC', String(comment.id)),
    diff_hunk: comment.diff_hunk,
    path: comment.path,
    position,
    original_position: position,
    commit_id: comment.commit_id,
    original_commit_id: comment.commit_id,
    ...(comment.in_reply_to_id === undefined ? {} : { in_reply_to_id: comment.in_reply_to_id }),
    user: userJson(ctx, comment.user),
    body: comment.body,
    created_at: comment.created_at,
    updated_at: comment.updated_at,
    html_url: htmlUrl,
    pull_request_url: pullUrl,
    author_association: authorAssociation(ctx, comment.user),
    _links: { self: { href: url }, html: { href: htmlUrl }, pull_request: { href: pullUrl } },
    start_line: comment.start_line ?? null,
    original_start_line: comment.start_line ?? null,
    start_side: comment.start_line === undefined ? null : comment.side,
    line: comment.line,
    original_line: comment.line,
    side: comment.side,
    subject_type: 'line',
    reactions: reactionRollup(url, comment.reactions),
  };
}

export function reviewJson(ctx: Ctx, review: ReviewState) {
  const pullUrl = `${ctx.api}/repos/${ctx.owner}/${ctx.repo}/pulls/${review.pull_number}`;
  const htmlUrl = `${WEB}/${ctx.owner}/${ctx.repo}/pull/${review.pull_number}#pullrequestreview-${review.id}`;
  return {
    id: review.id,
    node_id: nodeId('PRR', String(review.id)),
    user: userJson(ctx, review.user),
    body: review.body,
    state: review.state,
    html_url: htmlUrl,
    pull_request_url: pullUrl,
    _links: { html: { href: htmlUrl }, pull_request: { href: pullUrl } },
    submitted_at: review.submitted_at,
    commit_id: review.commit_id,
    author_association: authorAssociation(ctx, review.user),
  };
}
