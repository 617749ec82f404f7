// The first way a fork's work goes back: onto the contributor's own branch, when they allow edits from
// maintainers and the token can push there. GitHub lets people with push access to this repository push to
// the head branch of a pull request from a user's fork that allows it; the workflow's GITHUB_TOKEN reaches
// this repository alone, so it is not tried. The agent's commit goes on top of the head the run started
// from, with our own git and the token as every push of ours sends it, never forced: a head the contributor
// moved meanwhile, a refusal, or a change under `.github/` leaves their branch as it was, and the run goes
// on to the review (or `fork_delivery: pull-request`) with a sentence that says why.
import type { GitRepo } from '../../git/repo.js';
import type { GitHubApi } from '../../github/api/github-api.js';
import type { ForkHead } from '../../github/request/work-plan.js';
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
export type ForkPush = { delivery: Delivery } | { declined: string | undefined };

export async function pushOntoFork(request: ForkPushRequest): Promise<ForkPush> {
  const { git, api, startSha, fork, redact } = request;
  // The sentences that say why not are short: the checklist's note (one line, cut at 300 characters) also
  // carries the review's, with its link.
  if (!fork.maintainerCanModify)
    return {
      declined: `@${fork.author} does not allow edits from maintainers, so nothing was pushed to their branch.`,
    };
  if (await api.access.isWorkflowToken())
    return { declined: "The workflow's GITHUB_TOKEN cannot push to a fork." };
  const { heldBack } = await holdBackStrays({ git, startSha, redact });
  if (!(await commitLocally(request))) return { declined: undefined };
  const declined = await pushed(request);
  if (declined) {
    // The commit is made again by the delivery that follows (a review is of the head, not of our commit).
    await git.uncommitSince(startSha);
    return { declined };
  }
  const sha = await git.head();
  const url = `${request.serverUrl}/${fork.repo}/commit/${sha}`;
  const where = `\`${fork.repo}:${fork.ref}\``;
  return {
    delivery: {
      heldBack,
      commit: { sha, signed: false },
      note: `@${fork.author} allows edits from maintainers, so the work was pushed onto ${where}, on top of the head it started from (${startSha.slice(0, 7)}): ${url}`,
    },
  };
}

/** The push of HEAD onto the fork's branch; the sentence that says why not, or undefined once it is there. */
async function pushed(request: ForkPushRequest) {
  const { git, startSha, fork, serverUrl, redact } = request;
  if (!request.completed)
    return 'The run did not complete its list, so its work was not pushed to their branch.';
  const touched = (await git.changesBetween(startSha, 'HEAD')).filter((c) => c.path.startsWith('.github/'));
  if (touched.length > 0)
    return `The work changes files under \`.github/\`, which would run in @${fork.author}'s fork with its secrets, so it was not pushed there.`;
  const outcome = await git.push(fork.ref, `${serverUrl.replace(/\/+$/, '')}/${fork.repo}.git`);
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
