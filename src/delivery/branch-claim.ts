// The branch a signed commit goes on, made on GitHub before delivery needs it. GraphQL's createCommitOnBranch
// takes only a branch that exists, so an API commit costs two round trips in a row (the branch, then the
// commit). The branch is made at the start, where a new branch's commit goes on anyway, as soon as the run
// is known to change something the API can carry: when the model's last look lists the files (the model's
// summary turn then hides the round trip), or at the latest beside the local commit. Every branch made for
// the delivery is held here (the API commit's fresh name too), and one that the work never reaches is
// deleted once, when the delivery session (session.ts) lands elsewhere or abandons it, since a branch left
// at the start would look like delivered work.
import type { GitRepo, TreeChange } from '../git/repo.js';
import type { GitHubApi } from '../github/api/github-api.js';
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

  /** Whether our checkout knows the branch on origin: asked once, up front, so that an early claim goes out at once. */
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
  claimEarly(committed: readonly TreeChange[]): void {
    const { api, branch, startSha, signed, continuesBranch } = this.#options;
    if (this.#claim || this.#settled || !signed || continuesBranch) return;
    if (committed.length === 0 || inexpressible(committed)) return;
    this.#claim = (async () => {
      if (await this.#known) return undefined;
      return (await api.refs.createBranch(branch, startSha)) === 'created' ? branch : undefined;
    })().catch(() => undefined);
  }

  /** The branch claimed (it stands at the start), or undefined when none was. */
  async claimed(): Promise<string | undefined> {
    return await this.#claim;
  }

  /**
   * Makes the branch the API commit goes on now, at `sha`: `name`, or a fresh variant when other work took
   * it. It is this claim's from then on (`landed` and `drop` settle it); undefined when every name is taken.
   */
  async fresh(name: string, sha: string): Promise<string | undefined> {
    const made = createFreshBranch(this.#options.api, name, sha);
    this.#claim = made.catch(() => undefined);
    return await made;
  }

  /** The work went to GitHub, on `branch`: a branch made for it elsewhere (a fresh name left behind) goes. */
  async landed(branch: string): Promise<void> {
    await this.#settle(branch);
  }

  /** The work did not reach GitHub (or the delivery broke off): the branch made for it goes. The session's abandon() alone calls it. */
  async drop(): Promise<void> {
    await this.#settle(undefined);
  }

  /**
   * The one place a branch made for the delivery is deleted: once, when the work is not on it. A failure to
   * delete is let be.
   */
  async #settle(landedOn: string | undefined): Promise<void> {
    if (this.#settled) return;
    this.#settled = true;
    const made = await this.#claim;
    if (made && made !== landedOn) await this.#options.api.refs.deleteBranch(made).catch(() => undefined);
  }
}

/** How many times a taken branch name moves on to a fresh one (`name-2`, `name-3`). */
const BRANCH_RENAMES = 2;

async function createFreshBranch(api: GitHubApi, name: string, sha: string): Promise<string | undefined> {
  for (let renames = 0; renames <= BRANCH_RENAMES; renames++) {
    const candidate = renames === 0 ? name : `${name}-${renames + 1}`;
    if ((await api.refs.createBranch(candidate, sha)) === 'created') return candidate;
  }
  return undefined;
}
