// The branch a signed commit goes on, made on GitHub before delivery needs it. GraphQL's createCommitOnBranch
// takes only a branch that exists, so an API commit costs two round trips in a row (the branch, then the
// commit). The branch is made at the start, where a new branch's commit goes on anyway, as soon as the run
// is known to change something the API can carry: when the model's last look lists the files (the model's
// summary turn then hides the round trip), or at the latest beside the local commit. A branch claimed for
// work that never reaches it is deleted, since a branch left at the start would look like delivered work.
import type { GitRepo, TreeChange } from '../git/repo.js';
import type { GitHubApi } from '../github/api.js';
import { inexpressible } from './api-commit.js';

export interface BranchClaimOptions {
  git: GitRepo;
  api: GitHubApi;
  /** The branch name the work would go to. */
  branch: string;
  startSha: string;
  /** Signed commits are asked for: the work goes through the API when it can. */
  signed: boolean;
  /** The branch holds earlier work (a PR head, a resumed run): it exists, nothing to claim. */
  continuesBranch: boolean;
}

export class BranchClaim {
  #claim: Promise<string | undefined> | undefined;
  #settled = false;
  readonly #options: BranchClaimOptions;

  /** Whether our checkout knows the branch on origin: asked once, up front, so that a stake goes out at once. */
  readonly #known: Promise<boolean>;

  constructor(options: BranchClaimOptions) {
    this.#options = options;
    const { git, branch, signed, continuesBranch } = options;
    this.#known =
      signed && !continuesBranch
        ? git.resolve(`refs/remotes/origin/${branch}`).then(Boolean, () => true)
        : Promise.resolve(true);
  }

  /**
   * Claims the branch once, when `committed` (what would be committed now) is a change the API can carry and
   * the name is one our checkout knows nothing of. A name taken, or any failure, claims nothing: delivery
   * then finds the branch its usual way.
   */
  stake(committed: readonly TreeChange[]): void {
    const { api, branch, startSha, signed, continuesBranch } = this.#options;
    if (this.#claim || this.#settled || !signed || continuesBranch) return;
    if (committed.length === 0 || inexpressible(committed)) return;
    this.#claim = (async () => {
      if (await this.#known) return undefined;
      return (await api.createBranch(branch, startSha)) === 'created' ? branch : undefined;
    })().catch(() => undefined);
  }

  /** The branch claimed (it stands at the start), or undefined when none was. */
  async claimed(): Promise<string | undefined> {
    return await this.#claim;
  }

  /** The work went to GitHub (to the claimed branch or elsewhere): the claim is settled, `drop` does nothing. */
  keep(): void {
    this.#settled = true;
  }

  /**
   * Deletes the claimed branch, unless the claim was kept: the work did not go to it. Once only; a failure
   * to delete is let be.
   */
  async drop(): Promise<void> {
    if (this.#settled) return;
    this.#settled = true;
    const claimed = await this.#claim;
    if (claimed) await this.#options.api.deleteBranch(claimed).catch(() => undefined);
  }
}
