// The delivery of one job, opened once before the loop and the only owner of the branch claimed for it:
// `preview()` is the model's last look (and the moment the branch can be claimed), `land()` commits, pushes
// and opens the pull request, and `abandon()` gives the claim up. The action only says when each happens.
import path from 'node:path';
import type { DeliveryList } from '../agent/options.js';
import { disarmGitDirs } from '../git/git-dirs.js';
import { disarmSentences } from '../git/workspace-guard.js';
import { log } from '../runner/output.js';
import { signsCommits } from '../github/request/run-kinds.js';
import type { BranchPlan } from '../github/request/work-plan.js';
import { BranchClaim, type BranchClaimOptions } from './branch-claim.js';
import { deliver, type Delivery, type DeliveryRequest } from './deliver.js';
import { pendingChange } from './pending-change.js';
import { deliveryReview, fileLines } from './messages/review.js';

/** What landing needs beyond what the session was opened with. */
export type LandRequest = Omit<DeliveryRequest, keyof BranchClaimOptions>;

export class DeliverySession {
  readonly #options: BranchClaimOptions;
  readonly #claim: BranchClaim;

  constructor(options: BranchClaimOptions) {
    this.#options = options;
    this.#claim = new BranchClaim(options);
  }

  /**
   * The session of a run that delivers, as its kind says (github/request/run-kinds.ts): the plan's branch,
   * whether it holds earlier work, and whether its commit goes through the API, signed.
   */
  static forPlan(
    plan: BranchPlan,
    where: Pick<BranchClaimOptions, 'git' | 'api' | 'startSha'> & { signedCommits: boolean },
  ): DeliverySession {
    const { git, api, startSha, signedCommits } = where;
    return new DeliverySession({
      git,
      api,
      startSha,
      branch: plan.branch,
      continuesBranch: plan.continuesBranch,
      signed: signedCommits && signsCommits(plan),
    });
  }

  /**
   * The files delivery would commit, between two tool calls (no process of the model is left): every git
   * directory of the workspace is disarmed first, as before delivery, because staging a nested repository
   * reads its refs; the work is staged and what is held back sorted out; a change a signed commit can carry
   * claims its new branch on GitHub now, while the model writes its summary. A failure costs the look, never
   * the run, and its text (git's, which may quote a file a link named) is not shown.
   */
  async preview(): Promise<DeliveryList | undefined> {
    const { git, startSha } = this.#options;
    try {
      const pending = await this.#pending();
      const review = await deliveryReview(git, startSha, pending);
      if (review) this.#claim.claimEarly(pending.committed);
      return review;
    } catch {
      log.warning(
        'The list of files to be committed could not be made for the model; delivery goes on without it.',
      );
      return undefined;
    }
  }

  /**
   * The files changed so far, a line each with lines added and removed, for the model's turn after a
   * compaction: the same look as preview() (between two tool calls), but it claims nothing. A failure costs
   * the lines, never the run.
   */
  async changedFiles(): Promise<string | undefined> {
    try {
      const pending = await this.#pending();
      if (pending.changes.length === 0) return undefined;
      return await fileLines(this.#options.git, this.#options.startSha, pending.committed);
    } catch {
      return undefined;
    }
  }

  /** The workspace's git directories disarmed, then the work staged and sorted out (pending-change.ts). */
  async #pending() {
    const { git, api, startSha } = this.#options;
    const disarmed = await disarmGitDirs(git.dir, git, [path.join(git.dir, '.git')]);
    for (const sentence of disarmSentences(disarmed)) log.warning(sentence);
    const lockedWorkflows = (await api.access.mayChangeWorkflows()) === false;
    return await pendingChange(git, startSha, { lockedWorkflows });
  }

  /**
   * Commits what is staged once more (the model may have removed strays since the look), lands it on GitHub
   * and opens the pull request (deliver.ts). The claimed branch is kept when the work is on it, and given up
   * through abandon() when it is not, or when the delivery breaks off.
   */
  async land(request: LandRequest): Promise<Delivery> {
    const claim = this.#claim;
    const hold = {
      claimEarly: claim.claimEarly.bind(claim),
      claimed: claim.claimed.bind(claim),
      fresh: claim.fresh.bind(claim),
      landed: claim.landed.bind(claim),
      abandon: () => this.abandon(),
    };
    try {
      return await deliver({ ...request, ...this.#options }, hold);
    } catch (error) {
      await this.abandon();
      throw error;
    }
  }

  /**
   * The one place a claimed branch is given up: deleted on GitHub, once, unless the work already landed on
   * it (a branch left at the start would look like delivered work). Safe to call any number of times.
   */
  async abandon(): Promise<void> {
    await this.#claim.drop();
  }
}
