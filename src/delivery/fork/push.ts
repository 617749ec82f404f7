// The first way a fork's work goes back: onto the contributor's own branch, when they allow edits from
// maintainers and the token can push there. GitHub lets people with push access to this repository push to
// the head branch of a pull request from a user's fork that allows it; the workflow's GITHUB_TOKEN reaches
// this repository alone, so it is not tried. The agent's commit goes on top of the head the run started
// from, with our own git and the token as every push of ours sends it, never forced: a head the contributor
// moved meanwhile, a refusal, or a change under `.github/` leaves their branch as it was, and the run goes
// on to the review (or `fork_delivery: pull-request`) with a sentence that says why. What can be known
// before any work (edits not allowed, the workflow's token, an unfinished run, a deleted fork) is asked
// first; the change is staged to be judged, and committed only when it may go.
import type { GitRepo } from '../../git/repo.js';
import type { GitHubApi } from '../../github/api/github-api.js';
import type { ForkHead } from '../../github/request/work-plan.js';
import { commitUrl, type RepoLocation } from '../../github/urls.js';
import { commitLocally, holdBackStrays, type Delivery } from '../deliver.js';
import { refusalOf } from '../messages/refusal.js';

export interface ForkPushRequest {
  git: GitRepo;
  api: GitHubApi;
  /** The head's commit the run started from: the contributor's branch must still be there. */
  startSha: string;
  fork: ForkHead;
  /** GITHUB_SERVER_URL: the fork's repository is `<serverUrl>/<owner>/<name>.git`, the host the token is for. */
  serverUrl: string;
  /** Every item is done: unfinished work goes back as the review, never onto the contributor's branch. */
  completed: boolean;
  commitMessage: string;
  redact: (text: string) => string;
}

/** Pushed (the delivery), or not (why, for the checklist; undefined when there was nothing to push). */
type ForkPush = { delivery: Delivery } | { declined: string | undefined };

export async function pushOntoFork(request: ForkPushRequest): Promise<ForkPush> {
  const { git, startSha, fork, redact } = request;
  const where = forkLocation(request);
  const notTried = await whyNotTried(request, where);
  if (notTried || !where) return { declined: notTried };
  const { heldBack } = await holdBackStrays({ git, startSha, redact });
  // What the commit would hold (the model's own commits and what is staged now), judged before it is made.
  const changes = await git.changesBetween(startSha, await git.stagedTree());
  if (changes.length === 0) return { declined: undefined };
  if (changes.some((change) => change.path.startsWith('.github/')))
    return {
      declined: `The work changes files under \`.github/\`, which would run in @${fork.author}'s fork with its secrets, so it was not pushed there.`,
    };
  await commitLocally(request);
  const declined = await pushed(request, where);
  if (declined) {
    // The commit is made again by the delivery that follows (a review is of the head, not of our commit).
    await git.uncommitSince(startSha);
    return { declined };
  }
  const sha = await git.head();
  const branch = `${fork.repo}:${fork.ref}`;
  return {
    delivery: {
      heldBack,
      commit: { sha, signed: false },
      pushedToFork: branch,
      note: `@${fork.author} allows edits from maintainers, so the work was pushed onto \`${branch}\`, on top of the head it started from (${startSha.slice(0, 7)}): ${commitUrl(where, sha)}`,
    },
  };
}

/**
 * Why no push is tried, known before any work: the sentences are short, since the checklist's note (one
 * line, cut at 300 characters) also carries the review's, with its link. Undefined: it is tried.
 */
async function whyNotTried(
  { api, fork, completed }: ForkPushRequest,
  where: RepoLocation | undefined,
): Promise<string | undefined> {
  if (fork.deleted || !where)
    return "The pull request's fork was deleted, so there is no branch of theirs to push to.";
  if (!fork.maintainerCanModify)
    return `@${fork.author} does not allow edits from maintainers, so nothing was pushed to their branch.`;
  if (await api.access.isWorkflowToken()) return "The workflow's GITHUB_TOKEN cannot push to a fork.";
  if (!completed) return 'The run did not complete its list, so nothing is pushed to their branch.';
  return undefined;
}

/**
 * The fork's repository on the server the token is for; undefined when its name is not one (a deleted fork is
 * told by `fork.deleted`, and its placeholder name, `(deleted fork)`, is not one either).
 */
export function forkLocation({
  serverUrl,
  fork,
}: Pick<ForkPushRequest, 'serverUrl' | 'fork'>): RepoLocation | undefined {
  const [owner, repo, ...rest] = fork.repo.split('/');
  const name = /^[\w.-]+$/;
  if (!owner || !repo || rest.length > 0 || !name.test(owner) || !name.test(repo)) return undefined;
  return { serverUrl, owner, repo };
}

/** The push of HEAD onto the fork's branch; the sentence that says why not, or undefined once it is there. */
async function pushed({ git, fork, redact }: ForkPushRequest, where: RepoLocation) {
  const url = `${where.serverUrl.replace(/\/+$/, '')}/${where.owner}/${where.repo}.git`;
  const outcome = await git.push(fork.ref, url);
  if (outcome.ok) return undefined;
  if (outcome.rejected)
    return `@${fork.author} pushed to their branch while the agent worked; nothing of theirs is overwritten.`;
  return `GitHub refused the push to their branch (${refusedBecause(outcome.message, redact)}).`;
}

/** Why GitHub refused the push, in a few words: the token's access, a rule, or git's own reason. */
export function refusedBecause(message: string, redact: (text: string) => string): string {
  const refusal = refusalOf(message);
  if (refusal) return refusal.rule;
  if (/\b403\b|permission to \S+ denied|access denied|not allowed to push/i.test(message))
    return 'this token may not push to the fork';
  const rejected = /\[remote rejected\][^(\n]*\(([^)\n]+)\)/.exec(message)?.[1];
  const line = message
    .replace(/^git [^\n]*? failed(?: \(exit \d+\))?:\s*/, '')
    .split('\n')
    .map((text) => text.replace(/^(?:remote:|fatal:|error:)\s*/i, '').trim())
    .find((text) => text && !/^(?:To |Done$|[!=*+-]\t)/.test(text));
  return redact(rejected ?? line ?? 'git gave no reason').slice(0, 200);
}
