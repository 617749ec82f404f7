// After the loop: commit the work, push a branch, and open the pull request when every item is done.
import type { AgentResult } from '../agent/events.js';
import type { GitRepo } from '../git/repo.js';
import type { GitHubApi } from './api.js';

export interface DeliveryRequest {
  git: GitRepo;
  api: GitHubApi;
  result: AgentResult;
  /** HEAD before the agent started: work the model committed itself still counts. */
  startSha: string;
  branch: string;
  base: string;
  /** When set, push to this existing branch (a run on a pull request) instead of opening a new PR. */
  existingPullHead?: boolean;
  commitMessage: string;
  pull: { title: string; body: string };
}

export interface Delivery {
  /** The branch that holds the work on the remote, if anything was pushed. */
  pushedBranch?: string;
  pr?: { number: number; url: string; reused: boolean };
  /** A sentence for the comment when there is something to say (no changes, push failed). */
  note?: string;
}

const PUSH_ATTEMPTS = 3;

export async function deliver(request: DeliveryRequest): Promise<Delivery> {
  const { git, result } = request;
  await git.commitAll(request.commitMessage);
  if ((await git.head()) === request.startSha) {
    return result.status === 'completed'
      ? {
          note: 'Every item is completed, and the work left no changes in the repository, so there is no pull request.',
        }
      : {};
  }
  const pushed = await pushSomewhere(git, request.branch, !request.existingPullHead);
  if (!pushed.branch) return { note: `The work could not be pushed: ${pushed.message}` };
  if (result.status !== 'completed' || request.existingPullHead) return { pushedBranch: pushed.branch };
  const pr = await request.api.openPull({ head: pushed.branch, base: request.base, ...request.pull });
  return { pushedBranch: pushed.branch, pr: { number: pr.number, url: pr.htmlUrl, reused: pr.reused } };
}

/** Pushes to the branch; when the name is taken by other work, moves to a fresh name instead of losing it. */
async function pushSomewhere(
  git: GitRepo,
  branch: string,
  mayRename: boolean,
): Promise<{ branch?: string; message: string }> {
  let message = '';
  for (let attempt = 1; attempt <= PUSH_ATTEMPTS; attempt++) {
    const name = attempt === 1 || !mayRename ? branch : `${branch}-${attempt}`;
    const outcome = await git.push(name);
    if (outcome.ok) return { branch: name, message: '' };
    message = outcome.message;
    if (!outcome.rejected || !mayRename) break;
  }
  return { message };
}
