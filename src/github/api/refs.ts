// Branches and the signed commit: the default branch, a branch created or deleted, a commit GitHub signs.
import { statusOf, type RepoScope } from './octokit.js';

interface ApiCommit {
  branch: string;
  headline: string;
  body?: string;
  /** Contents as RFC 4648 base64. */
  additions: Array<{ path: string; contents: string }>;
  deletions: Array<{ path: string }>;
  expectedHeadOid: string;
}

const CREATE_COMMIT = `mutation ($input: CreateCommitOnBranchInput!) {
  createCommitOnBranch(input: $input) { commit { oid url } }
}`;

export class Refs {
  constructor(readonly scope: RepoScope) {}

  get #repo(): { owner: string; repo: string } {
    return { owner: this.scope.owner, repo: this.scope.repo };
  }

  async defaultBranch(): Promise<string> {
    const { data } = await this.scope.octokit.rest.repos.get(this.#repo);
    return data.default_branch;
  }

  /** Deletes a branch this run created (REST `DELETE /git/refs/heads/{name}`); one already gone is fine. */
  async deleteBranch(name: string): Promise<void> {
    try {
      await this.scope.octokit.rest.git.deleteRef({ ...this.#repo, ref: `heads/${name}` });
    } catch (error) {
      if (statusOf(error) === 422 && /does not exist/i.test(String((error as Error).message))) return;
      throw error;
    }
  }

  /** Creates branch `name` at `sha`: 'exists' when the name is taken (GitHub's 422). */
  async createBranch(name: string, sha: string): Promise<'created' | 'exists'> {
    try {
      await this.scope.octokit.rest.git.createRef({ ...this.#repo, ref: `refs/heads/${name}`, sha });
      return 'created';
    } catch (error) {
      // 422 also answers a sha GitHub does not have: only "Reference already exists" means the name is taken.
      if (statusOf(error) === 422 && /already exists/i.test(String((error as Error).message)))
        return 'exists';
      throw error;
    }
  }

  /**
   * Appends one commit to `branch` with GraphQL's createCommitOnBranch: GitHub authors it as the token's
   * owner and signs it. `expectedHeadOid` makes it fail, rather than overwrite, when the branch moved on.
   */
  async createCommitOnBranch(commit: ApiCommit): Promise<{ oid: string; url: string }> {
    const { octokit, owner, repo } = this.scope;
    const result = await octokit.graphql<{
      createCommitOnBranch: { commit: { oid: string; url: string } };
    }>(CREATE_COMMIT, {
      input: {
        branch: { repositoryNameWithOwner: `${owner}/${repo}`, branchName: commit.branch },
        message: { headline: commit.headline, ...(commit.body ? { body: commit.body } : {}) },
        fileChanges: { additions: commit.additions, deletions: commit.deletions },
        expectedHeadOid: commit.expectedHeadOid,
      },
    });
    return result.createCommitOnBranch.commit;
  }
}
