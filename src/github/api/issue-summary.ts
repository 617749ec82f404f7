// The issue (or pull request) a run is on, as the trigger reads it from an event's payload and the API from
// `GET /repos/{owner}/{repo}/issues/{n}`. Pure, and free of Octokit: the action's entry (action/start.ts)
// reads the trigger before anything else is loaded.

/**
 * An issue (or pull request) as a run knows it: what a comment's payload carries (github/request/trigger.ts
 * reads it there) and what the API gives for a dispatch, which names only its number (`issue()`).
 */
export interface IssueSummary {
  issueNumber: number;
  isPullRequest: boolean;
  issueTitle: string;
  issueBody: string;
  /** Who opened the issue, and GitHub's author_association for them. */
  issueAuthor: string;
  issueAuthorAssociation: string;
  issueState: string;
  locked: boolean;
}

/** An issue as both the REST API and an event's payload write it: the fields a summary is read from. */
interface IssueData {
  number: number;
  title: string;
  body?: string | null;
  user?: { login: string } | null;
  author_association?: string | null;
  state: string;
  locked?: boolean | null;
}

/** The one reading of GitHub's issue object into a summary, for the payload and the API alike. */
export function issueSummary(data: IssueData, isPullRequest: boolean): IssueSummary {
  return {
    issueNumber: data.number,
    isPullRequest,
    issueTitle: data.title,
    issueBody: data.body ?? '',
    issueAuthor: data.user?.login ?? 'ghost',
    issueAuthorAssociation: data.author_association ?? 'NONE',
    issueState: data.state,
    locked: data.locked ?? false,
  };
}
