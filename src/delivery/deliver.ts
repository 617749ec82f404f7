// After the loop: commit the work, push a branch, and open the pull request when every item is done.
import type { AgentResult } from '../agent/events.js';
import type { GitRepo } from '../git/repo.js';
import type { ChangedFile, GitHubApi, OpenPull } from '../github/api.js';
import { statusOf } from '../github/api.js';
import { errorSentence } from '../text/error-sentence.js';

export interface DeliveryRequest {
  git: GitRepo;
  api: GitHubApi;
  result: AgentResult;
  /** HEAD before the agent started: work the model committed itself still counts. */
  startSha: string;
  branch: string;
  base: string;
  /** The branch already holds earlier work (a PR head, a resumed run), so it may have moved on meanwhile. */
  continuesBranch: boolean;
  /** Open (or reuse) a pull request when every item is completed; false for a run on a PR's own head. */
  openPull: boolean;
  commitMessage: string;
  pull: {
    title: string;
    /** The description, given the files GitHub counts once the pull request exists (before: none). */
    body: (files?: PullFiles) => string;
    draft: boolean;
  };
}

export type PullFiles = { files: ChangedFile[]; more: boolean };

export interface Delivery {
  /** The branch that holds the work on the remote, if anything was pushed. */
  pushedBranch?: string;
  pr?: { number: number; url: string; reused: boolean };
  /** A sentence for the comment when there is something to say (no changes, push failed). */
  note?: string;
}

const PUSH_ATTEMPTS = 3;
/** Before pushing again after a failure that was not a rejection (a network or server hiccup). */
const PUSH_RETRY_DELAY_MS = 2_000;

export async function deliver(request: DeliveryRequest): Promise<Delivery> {
  const { git, result } = request;
  await git.commitAll(request.commitMessage);
  const madeCommits = (await git.head()) !== request.startSha;
  if (!madeCommits && !request.continuesBranch) {
    return result.status === 'completed'
      ? {
          note: 'Every item is completed, and the work left no changes in the repository, so there is no pull request.',
        }
      : {};
  }
  // A continued branch already holds the earlier work on the remote: with nothing new, there is nothing to push.
  // A name taken by other work (or a continued branch that moved on meanwhile) means a fresh name, never lost work.
  const pushed = madeCommits
    ? await pushSomewhere(git, request.branch, true)
    : { branch: request.branch, message: '' };
  if (!pushed.branch) return { note: `The work could not be pushed: ${pushed.message}` };
  const moved =
    request.continuesBranch && pushed.branch !== request.branch
      ? `\`${request.branch}\` changed while the agent worked, so its work went to \`${pushed.branch}\` instead.`
      : undefined;
  const opens = result.status === 'completed' && request.openPull;
  const found = await pullFor(request, pushed.branch, opens);
  if ('error' in found) {
    return { pushedBranch: pushed.branch, note: [moved, found.error].filter(Boolean).join(' ') };
  }
  const { pr } = found;
  if (!pr) return { pushedBranch: pushed.branch, ...(moved ? { note: moved } : {}) };
  // A description this action wrote (now, or an earlier run's) is brought up to date; a person's is left alone.
  const described = pr.ours ? await describe(request, pr.number) : undefined;
  const note = [moved, described].filter(Boolean).join(' ');
  return {
    pushedBranch: pushed.branch,
    pr: { number: pr.number, url: pr.htmlUrl, reused: pr.reused },
    ...(note ? { note } : {}),
  };
}

/**
 * The pull request the pushed work belongs to: opened (or reused) when the run completed on its own branch;
 * otherwise the one already open for the branch, if any (a run on a PR, a continued run).
 */
async function pullFor(
  request: DeliveryRequest,
  branch: string,
  opens: boolean,
): Promise<{ pr?: OpenPull } | { error: string }> {
  try {
    if (!opens) return { pr: await request.api.findOpenPull(branch) };
    const { title, draft } = request.pull;
    const pr = await request.api.openPull({
      head: branch,
      base: request.base,
      title,
      draft,
      body: request.pull.body(),
    });
    return { pr };
  } catch (error) {
    // The work is pushed: say where, rather than fail the run and hide the branch.
    if (!opens) return {};
    const status = statusOf(error);
    const why = errorSentence(error);
    return {
      error: `The pull request could not be opened (${status ? `${status}: ` : ''}${why}); the work is on the branch.`,
    };
  }
}

/** Rewrites the description with the files GitHub counts; a sentence for the comment when that fails. */
async function describe(request: DeliveryRequest, pullNumber: number): Promise<string | undefined> {
  try {
    const files = await request.api.pullFiles(pullNumber);
    await request.api.updatePullBody(pullNumber, request.pull.body(files));
    return undefined;
  } catch (error) {
    return `The pull request description could not be brought up to date: ${errorSentence(error)}.`;
  }
}

/**
 * Pushes to the branch; when the name is taken by other work, moves to a fresh name instead of losing it.
 * Any other failure (network, server) is tried again under the same name after a pause.
 */
async function pushSomewhere(
  git: GitRepo,
  branch: string,
  mayRename: boolean,
): Promise<{ branch?: string; message: string }> {
  let message = '';
  let name = branch;
  let renames = 0;
  for (let attempt = 1; attempt <= PUSH_ATTEMPTS; attempt++) {
    const outcome = await git.push(name);
    if (outcome.ok) return { branch: name, message: '' };
    message = outcome.message;
    if (outcome.rejected) {
      if (!mayRename) break;
      renames++;
      name = `${branch}-${renames + 1}`;
    } else if (attempt < PUSH_ATTEMPTS) {
      await new Promise((resolve) => setTimeout(resolve, PUSH_RETRY_DELAY_MS));
    }
  }
  return { message };
}
