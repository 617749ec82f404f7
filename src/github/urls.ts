// The github.com pages a run links to: the run itself, a branch's tree, a commit.

/** Where the repository lives: the server (https://github.com or a GHES host) and owner/repo. */
export interface RepoLocation {
  serverUrl: string;
  owner: string;
  repo: string;
}

const repoUrl = ({ serverUrl, owner, repo }: RepoLocation) => `${serverUrl}/${owner}/${repo}`;

export function runUrl(where: RepoLocation, runId: string): string {
  return `${repoUrl(where)}/actions/runs/${runId}`;
}

export function treeUrl(where: RepoLocation, branch: string): string {
  return `${repoUrl(where)}/tree/${branch}`;
}

export function commitUrl(where: RepoLocation, sha: string): string {
  return `${repoUrl(where)}/commit/${sha}`;
}
