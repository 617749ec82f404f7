// Pull request JSON shaped like GitHub's: the pull (simple and full) and its head and base branches.
import { authorAssociation, nodeId, repositoryJson, stableNumber, userJson } from './json.js';
import type { Ctx } from './json.js';
import type { PullState } from './types.js';

function branchJson(ctx: Ctx, ref: string, sha: string) {
  return {
    label: `${ctx.owner}:${ref}`,
    ref,
    sha,
    user: userJson(ctx, ctx.owner, 'Organization'),
    repo: repositoryJson(ctx),
  };
}

/** `full` adds the fields only the single-PR endpoints return (pull-request vs pull-request-simple). */
export function pullJson(ctx: Ctx, pull: PullState, commentCount: number, full: boolean) {
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
    head: branchJson(ctx, pull.head, pull.head_sha),
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
    comments: commentCount,
    review_comments: 0,
    maintainer_can_modify: false,
    commits: 1,
    additions: 0,
    deletions: 0,
    changed_files: 0,
  };
}
