// Issues, their comments and the reactions on them (a review comment's reaction too): reads and writes.
import { issueSummary, type IssueSummary } from './issue-summary.js';
import { BESIDE_OTHER_WRITES, statusOf, type RepoScope } from './octokit.js';

export type Reaction = 'eyes' | 'rocket' | 'confused' | '+1' | '-1' | 'laugh' | 'heart' | 'hooray';

export interface IssueComment {
  id: number;
  body: string;
  /** The body as GitHub renders it (asked with media type full+json): its images carry signed URLs. */
  bodyHtml?: string;
  user: string;
  userType: string;
  /** GitHub's author_association: OWNER, MEMBER, COLLABORATOR, CONTRIBUTOR, NONE, … */
  association: string;
  createdAt: string;
  updatedAt: string;
  htmlUrl: string;
}

/** A comment as one of our writes left it. */
export interface WrittenComment {
  id: number;
  body: string;
  etag?: string;
}

export class Issues {
  /** `reactedAs`: told the login each of our reactions comes back with (who this token writes as). */
  constructor(
    readonly scope: RepoScope,
    private readonly reactedAs: (login: string | undefined) => void,
  ) {}

  get #repo(): { owner: string; repo: string } {
    return { owner: this.scope.owner, repo: this.scope.repo };
  }

  /** An issue (or pull request) as a dispatch names it: what a comment's payload would have carried. */
  async issue(issueNumber: number): Promise<IssueSummary & { htmlUrl: string }> {
    const { data } = await this.scope.octokit.rest.issues.get({ ...this.#repo, issue_number: issueNumber });
    return { ...issueSummary(data, data.pull_request != null), htmlUrl: data.html_url };
  }

  /** The issue's (or pull request's) description as GitHub renders it, with its images' signed URLs. */
  async issueHtml(issueNumber: number): Promise<string> {
    const { data } = await this.scope.octokit.rest.issues.get({
      ...this.#repo,
      issue_number: issueNumber,
      mediaType: { format: 'full+json' },
    });
    return data.body_html ?? '';
  }

  /** The issue's comments, oldest first, each with its rendered HTML too. */
  async comments(issueNumber: number): Promise<IssueComment[]> {
    const { octokit } = this.scope;
    const all = await octokit.paginate(octokit.rest.issues.listComments, {
      ...this.#repo,
      issue_number: issueNumber,
      per_page: 100,
      mediaType: { format: 'full+json' },
    });
    return all.map(commentOf);
  }

  /** The new comment, with its body as GitHub holds it and the answer's ETag (see `updateComment`). */
  async createComment(issueNumber: number, body: string): Promise<WrittenComment & { htmlUrl: string }> {
    const { data, headers } = await this.scope.octokit.rest.issues.createComment({
      ...this.#repo,
      issue_number: issueNumber,
      body,
    });
    return { id: data.id, htmlUrl: data.html_url, ...written(data.body, headers.etag) };
  }

  /**
   * The body as GitHub now holds it, and the ETag of that answer: a representation of the comment as a GET
   * shows it, so a later conditional GET with it costs nothing until someone else edits the comment. (If
   * GitHub's ETag for a write differs from its GET's, that GET is a 200 once, as without it.)
   */
  async updateComment(commentId: number, body: string): Promise<WrittenComment> {
    const { data, headers } = await this.scope.octokit.rest.issues.updateComment({
      ...this.#repo,
      comment_id: commentId,
      body,
    });
    return { id: data.id, ...written(data.body, headers.etag) };
  }

  /**
   * A comment's body when it changed since `etag` (a conditional GET: a 304 costs no rate limit), with its new
   * ETag; undefined when it did not change.
   */
  async commentIfChanged(
    commentId: number,
    etag?: string,
  ): Promise<{ body: string; etag?: string } | undefined> {
    try {
      const { data, headers } = await this.scope.octokit.rest.issues.getComment({
        ...this.#repo,
        comment_id: commentId,
        ...(etag ? { headers: { 'if-none-match': etag } } : {}),
      });
      return { body: data.body ?? '', ...(headers.etag ? { etag: headers.etag } : {}) };
    } catch (error) {
      if (statusOf(error) === 304) return undefined;
      throw error;
    }
  }

  /** Reacts to an issue (or PR) itself; `beside` sends it beside the write in flight (a run's last one). */
  async reactToIssue(issueNumber: number, content: Reaction, { beside = false } = {}): Promise<void> {
    await this.scope.octokit.rest.reactions.createForIssue({
      ...this.#repo,
      issue_number: issueNumber,
      content,
      ...(beside ? BESIDE_OTHER_WRITES : {}),
    });
  }

  /** Reacts to an issue (or PR conversation) comment, or to a review comment on a line (`beside`: as above). */
  async react(
    commentId: number,
    content: Reaction,
    on: 'issue' | 'review' = 'issue',
    { beside = false } = {},
  ): Promise<void> {
    const { reactions } = this.scope.octokit.rest;
    const request = { ...this.#repo, comment_id: commentId, content, ...(beside ? BESIDE_OTHER_WRITES : {}) };
    const { data } =
      on === 'issue'
        ? await reactions.createForIssueComment(request)
        : await reactions.createForPullRequestReviewComment(request);
    this.reactedAs(data.user?.login);
  }
}

/** The fields an issue comment and a review comment share, as the action reads them. */
export function commentOf(comment: {
  id: number;
  body?: string | null;
  body_html?: string;
  user?: { login: string; type: string } | null;
  author_association: string;
  created_at: string;
  updated_at: string;
  html_url: string;
}): IssueComment {
  return {
    id: comment.id,
    body: comment.body ?? '',
    ...(comment.body_html ? { bodyHtml: comment.body_html } : {}),
    user: comment.user?.login ?? 'ghost',
    userType: comment.user?.type ?? 'User',
    association: comment.author_association,
    createdAt: comment.created_at,
    updatedAt: comment.updated_at,
    htmlUrl: comment.html_url,
  };
}

function written(body: string | null | undefined, etag: string | undefined): { body: string; etag?: string } {
  return { body: body ?? '', ...(etag ? { etag } : {}) };
}
