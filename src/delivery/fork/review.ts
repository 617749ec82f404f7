// The delivery of a fork's pull request: nothing is pushed anywhere. The agent's change goes back to the
// contributor's pull request as one review: suggestions on the lines of its diff that GitHub lets a review
// comment touch, and the whole change as a collapsed patch (`git apply`-able on the head) in its body.
import type { AgentResult } from '../../agent/events.js';
import type { GitRepo } from '../../git/repo.js';
import type { GitHubApi } from '../../github/api/github-api.js';
import { MAX_ATTACHED_PATCH_CHARS, patchDetails } from '../../github/checklist/kept-patch.js';
import { statusOf } from '../../github/api/octokit.js';
import type { ForkHead } from '../../github/request/work-plan.js';
import { errorSentence } from '../../text/error-sentence.js';
import { commitLocally, holdBackStrays, type Delivery } from '../deliver.js';
import { commentableLines, suggestionsOf, type Suggestion } from './suggestions.js';

export interface ForkReviewRequest {
  git: GitRepo;
  api: GitHubApi;
  result: AgentResult;
  /** The head's commit the run started from: the review is of it. */
  startSha: string;
  base: string;
  fork: ForkHead;
  commitMessage: string;
  redact: (text: string) => string;
  /** The checklist comment, linked from the review. */
  checklistUrl?: string;
}

/** How many suggestions one review carries at most; the patch has the whole change anyway. */
const MAX_SUGGESTIONS = 50;

export async function deliverForkReview(request: ForkReviewRequest): Promise<Delivery> {
  const { git, api, startSha, fork, redact } = request;
  // The pull request's own diff (base to head), read while HEAD is still the head: where suggestions may go.
  const from = (await git.mergeBase(`refs/remotes/origin/${request.base}`)) ?? startSha;
  const allowed = commentableLines(await git.patchSince(from));
  const { heldBack } = await holdBackStrays({ git, startSha, redact });
  if (!(await commitLocally(request))) {
    return request.result.status === 'completed'
      ? { heldBack, note: 'Every item is completed, and the work left no changes, so there is no review.' }
      : { heldBack };
  }
  const sha = await git.head();
  const patch = redact(await git.patchSince(startSha));
  const { suggestions, leftOut } = suggestionsOf(patch, allowed);
  const offered = suggestions.slice(0, MAX_SUGGESTIONS);
  const attach = patch.length <= MAX_ATTACHED_PATCH_CHARS;
  const body = reviewBody(request, { patch, attach, offered: offered.length, leftOut });
  const comments = offered.map((suggestion) => ({ ...suggestion, body: suggestionBody(suggestion) }));
  const commitId = startSha;
  let review: { htmlUrl: string };
  let dropped: string | undefined;
  try {
    review = await api.pulls.submitReview(fork.number, { commitId, body, comments });
  } catch (error) {
    // A line GitHub would not take (422) costs the suggestions, never the change: the patch carries it all.
    if (statusOf(error) !== 422 || comments.length === 0) throw error;
    dropped = errorSentence(error);
    const plain = reviewBody(request, { patch, attach, offered: 0, leftOut: [] });
    review = await api.pulls.submitReview(fork.number, { commitId, body: plain, comments: [] });
  }
  const said = dropped
    ? `GitHub took none of its suggestions (${dropped}), so the review holds the patch alone`
    : `${offered.length} suggestion${offered.length === 1 ? '' : 's'} and the whole change as a patch`;
  return {
    heldBack,
    commit: { sha, signed: false },
    // After the sentence that says why not otherwise, the short form: the note is one line of 300 characters.
    note: fork.fallback
      ? `${fork.fallback} The change went back as a review (${said}): ${review.htmlUrl}`
      : `This pull request comes from a fork, so nothing was pushed: the change went back to it as a review (${said}): ${review.htmlUrl}`,
    ...(attach ? {} : { patch }),
  };
}

/** The review's body: what it is, where the checklist is, what the suggestions leave out, and the patch. */
function reviewBody(
  { fork, checklistUrl }: ForkReviewRequest,
  { patch, attach, offered, leftOut }: { patch: string; attach: boolean; offered: number; leftOut: string[] },
): string {
  const lines = [
    `todo-agent's change to @${fork.author}'s pull request, as a maintainer asked${checklistUrl ? ` ([the run's checklist](${checklistUrl}))` : ''}. Nothing was pushed to the contributor's branch or to this repository.`,
    offered > 0
      ? `The ${offered === 1 ? 'suggestion' : `${offered} suggestions`} below can be committed from this page; the patch holds the whole change.`
      : 'The whole change is in the patch below.',
  ];
  if (leftOut.length > 0)
    lines.push(
      `Only the patch carries the change to ${leftOut.map((path) => `\`${path}\``).join(', ')} (a new, removed or binary file, or lines outside this pull request's diff).`,
    );
  lines.push(
    attach
      ? patchDetails(
          patch,
          'The whole change, as a patch (<code>git apply</code> it on the head it started from)',
        )
      : `_The whole change (${Math.ceil(patch.length / 1024)} KB as a patch) is too large to attach here; it is kept in the run's record._`,
  );
  return lines.join('\n\n');
}

/** A suggestion block, fenced longer than any run of backticks its lines hold. */
function suggestionBody({ lines }: Suggestion): string {
  const text = lines.join('\n');
  const longest = Math.max(0, ...(text.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(Math.max(3, longest + 1));
  return `${fence}suggestion\n${text}${lines.length > 0 ? '\n' : ''}${fence}`;
}
