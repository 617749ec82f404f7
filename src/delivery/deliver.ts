// After the loop, one straight path: the change as our own git sees it → what is held back → the commit
// (through GitHub's API, signed, or pushed with git) → the pull request, its whole description in one
// request. Each step is one named function below, in the order they run. The delivery session (session.ts)
// runs it with its hold on the branch: a new branch for a signed commit may be made on GitHub before.
import type { AgentResult } from '../agent/events.js';
import type { GitRepo } from '../git/repo.js';
import type { ChangedFile } from './messages/pull-body.js';
import type { GitHubApi } from '../github/api/github-api.js';
import type { OpenPull } from '../github/api/pulls.js';
import { statusOf } from '../github/api/octokit.js';
import { errorMessage, errorSentence } from '../text/error-sentence.js';
import { commitThroughApi } from './api-commit.js';
import type { BranchClaim } from './branch-claim.js';
import type { HeldBack } from './held-back.js';
import { refusalOf, refusedWorkflowFile, type Refusal } from './messages/refusal.js';
import { pendingChange } from './pending-change.js';
import { commitWithout, takeOutStagedWorkflows, type WorkflowPatch } from './workflow-files.js';
import { traced } from '../runner/trace.js';

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
  /** Commit through GitHub's API (signed) rather than push with git. */
  signed: boolean;
  /** The token may change workflow files, as its kind tells (api.mayChangeWorkflows); undefined: unknown. */
  mayChangeWorkflows?: boolean;
  commitMessage: string;
  /** Secrets out of anything shown (the patch of a refused change). */
  redact: (text: string) => string;
  /** Called once the work is on GitHub, as the pull request is asked for (the delivery's last request). */
  onLanded?: () => void;
  pull: {
    title: string;
    /** The whole description, given what was delivered. */
    body: (delivered: Delivered) => string;
    draft: boolean;
  };
}

/** What the pull request's description says of the delivery. */
/**
 * The session's hold on the branch a signed commit goes on (made at the model's last look, or here): the
 * delivery claims it early and uses it, says where the work landed, and gives it up through the session's abandon().
 */
type BranchHold = Pick<BranchClaim, 'claimEarly' | 'claimed' | 'fresh' | 'landed'> & {
  abandon(): Promise<void>;
};

interface Delivered {
  files: { files: ChangedFile[]; more: boolean };
  heldBack: readonly HeldBack[];
  /** Why the commit was pushed with git, unsigned, although signed commits are on. */
  unsignedBecause?: string;
  /** The workflow files the token may not change: left out, their change attached as a patch. */
  workflowPatch?: WorkflowPatch;
}

export interface Delivery {
  /** The branch that holds the work on the remote, if anything was pushed. */
  pushedBranch?: string;
  /** A contributor's branch the work was pushed onto instead (`owner/repo:branch`, fork/push.ts). */
  pushedToFork?: string;
  pr?: { number: number; url: string; reused: boolean };
  /** A sentence for the comment when there is something to say (no changes, push failed). */
  note?: string;
  /** The commit that holds the work, and whether GitHub made (and signed) it. */
  commit?: { sha: string; signed: boolean };
  heldBack?: readonly HeldBack[];
  /** GitHub refused the work: the rule and what to change. */
  refusal?: Refusal;
  /** The whole change as a patch (`git apply`), kept when it could not be delivered: for the run record. */
  patch?: string;
  /** The workflow part, left out of a delivery that went ahead without it. */
  workflowPatch?: WorkflowPatch;
}

const PUSH_ATTEMPTS = 3;
/** Before pushing again after a failure that was not a rejection (a network or server hiccup). */
const PUSH_RETRY_DELAY_MS = 2_000;
/** How many changed files a pull request body lists. */
const MAX_LISTED_FILES = 100;

export async function deliver(request: DeliveryRequest, claim: BranchHold): Promise<Delivery> {
  const {
    heldBack,
    committed,
    workflowPatch: upFront,
  } = await traced('the work staged, strays held back', holdBackStrays(request));
  claim.claimEarly(committed);
  const madeCommits = await traced('committed in our git directory', commitLocally(request)).catch(
    async (error: unknown) => {
      await claim.abandon();
      throw error;
    },
  );
  if (!madeCommits && !request.continuesBranch) {
    await claim.abandon();
    return { heldBack, ...(upFront ? onlyWorkflowPatch(upFront) : nothingToDeliver(request.result)) };
  }
  let workflowPatch = upFront;
  // The file list is read from our commit while it lands (GitHub's commit has the same tree).
  let files = filesChanged(request);
  files.catch(() => undefined);
  let landed = madeCommits
    ? await traced('commit landed on GitHub (pushed, or made through the API)', landCommit(request, claim))
    : { branch: request.branch, sha: await request.git.head(), signed: false };
  // A workflow file GitHub refused costs that file, not the rest: the rest goes again without it.
  if ('failed' in landed && refusedWorkflowFile(landed.message)) {
    const without = await commitWithout(request.git, request);
    if (without) {
      workflowPatch = without;
      files = filesChanged(request);
      files.catch(() => undefined);
      landed = await landCommit(request, claim);
    }
  }
  if ('failed' in landed) {
    await claim.abandon();
    return { heldBack, ...(await keepRefusedWork(request, landed)) };
  }
  await claim.landed(landed.branch);
  const moved =
    request.continuesBranch && landed.branch !== request.branch
      ? `\`${request.branch}\` changed while the agent worked, so its work went to \`${landed.branch}\` instead.`
      : undefined;
  const delivered: Delivered = {
    files: await files,
    heldBack,
    ...(landed.unsignedBecause ? { unsignedBecause: landed.unsignedBecause } : {}),
    ...(workflowPatch ? { workflowPatch } : {}),
  };
  const pulled = await traced('pull request opened', openPullRequest(request, landed.branch, delivered));
  const note = [
    moved,
    workflowPatch && workflowPatchNote(workflowPatch, pulled.pr !== undefined),
    pulled.note,
  ]
    .filter(Boolean)
    .join(' ');
  return {
    pushedBranch: landed.branch,
    commit: { sha: landed.sha, signed: landed.signed },
    heldBack,
    ...(pulled.pr ? { pr: pulled.pr } : {}),
    ...(note ? { note } : {}),
    ...(workflowPatch ? { workflowPatch } : {}),
  };
}

/**
 * 1–2. The change, as our own git sees it (everything staged, pendingChange), then what is held back:
 * generated environments, caches and large new files leave the index (not the disk).
 */
export async function holdBackStrays(
  request: Pick<DeliveryRequest, 'git' | 'startSha' | 'redact' | 'mayChangeWorkflows'>,
) {
  const { git, startSha, redact } = request;
  const lockedWorkflows = request.mayChangeWorkflows === false;
  const sorted = await pendingChange(git, startSha, { lockedWorkflows });
  // The workflow part's patch is taken while it is staged; then it leaves the index as the strays do.
  const workflowPatch =
    sorted.workflows.length > 0
      ? await takeOutStagedWorkflows(git, startSha, sorted.workflows, redact)
      : undefined;
  await git.unstage(sorted.heldPaths);
  await git.restoreStaged(startSha, sorted.restored);
  return { heldBack: sorted.heldBack, committed: sorted.committed, workflowPatch };
}

/** 3a. The local commit of what is staged; whether the branch now holds commits the start did not. */
export async function commitLocally({
  git,
  commitMessage,
  startSha,
}: Pick<DeliveryRequest, 'git' | 'commitMessage' | 'startSha'>): Promise<boolean> {
  await git.commitStaged(commitMessage);
  return (await git.head()) !== startSha;
}

/** The work was nothing but workflow files the token may not change: kept as a patch, as refused work is. */
function onlyWorkflowPatch(workflowPatch: WorkflowPatch): Pick<Delivery, 'note' | 'patch' | 'refusal'> {
  return {
    note: 'The work changes only workflow files, which this token may not create or change; the whole change is kept as a patch.',
    patch: workflowPatch.patch,
    refusal: workflowPatch.refusal,
  };
}

/** The sentence that says what the pull request leaves out, and why. */
function workflowPatchNote({ paths, refusal, refused }: WorkflowPatch, opened: boolean): string {
  const files = paths.map((path) => `\`${path}\``).join(', ');
  const why = `${refusal.rule}${refused ? ', and GitHub refused them' : ''}`;
  return opened
    ? `The work went ahead without ${files}: ${why}; their change is attached to the pull request as a patch.`
    : `The work went ahead without ${files}: ${why}; their change is kept as a patch in the run record.`;
}

function nothingToDeliver(result: AgentResult): Pick<Delivery, 'note'> {
  return result.status === 'completed'
    ? {
        note: 'Every item is completed, and the work left no changes in the repository, so there is no pull request.',
      }
    : {};
}

type Landed = { branch: string; sha: string; signed: boolean; unsignedBecause?: string };
type Failed = { failed: true; message: string };

/**
 * 3b. The commit on GitHub: through the API (signed) when asked and the change allows it, else pushed with
 * git. A name taken by other work (or a continued branch that moved on meanwhile) means a fresh name.
 */
async function landCommit(request: DeliveryRequest, claim: BranchHold): Promise<Landed | Failed> {
  const { git, api } = request;
  const claimed = await claim.claimed();
  const branch = claimed ?? request.branch;
  let unsignedBecause: string | undefined;
  if (request.signed) {
    const parent = claimed
      ? { parent: request.startSha, remote: 'existing' as const }
      : await parentOnRemote(request);
    if (!parent) {
      unsignedBecause = `\`${branch}\` moved on while the agent worked`;
    } else {
      try {
        const outcome = await commitThroughApi({
          git,
          api,
          branch,
          message: request.commitMessage,
          ...parent,
          makeBranch: (name, sha) => claim.fresh(name, sha),
        });
        if (outcome.landed) return { branch: outcome.branch, sha: outcome.sha, signed: true };
        unsignedBecause = outcome.why;
      } catch (error) {
        const message = errorMessage(error);
        // A rule refuses the change whichever way it goes; anything else may still get through with git.
        if (refusalOf(message)) return { failed: true, message };
        unsignedBecause = `GitHub's API did not take the commit (${statusOf(error) ?? 'error'}: ${errorSentence(error)})`;
      }
    }
  }
  const pushed = await pushSomewhere(git, branch);
  if (!pushed.branch) return { failed: true, message: pushed.message };
  return {
    branch: pushed.branch,
    sha: await git.head(),
    signed: false,
    ...(unsignedBecause ? { unsignedBecause } : {}),
  };
}

/**
 * The remote commit an API commit goes on, as a push would fast-forward: the branch's tip when it exists and
 * HEAD descends from it, else the start (a fresh name is found for a name other work took). Undefined when a
 * continued branch moved on meanwhile.
 */
async function parentOnRemote({ git, branch, startSha, continuesBranch }: DeliveryRequest) {
  const tip = await git.remoteTip(branch);
  if (!tip) return { parent: startSha, remote: 'new' as const };
  if ((await git.mergeBase(tip)) === tip) return { parent: tip, remote: 'existing' as const };
  return continuesBranch ? undefined : { parent: startSha, remote: 'new' as const };
}

/** A refused or failed push: the rule and what to change when GitHub said, and the whole change as a patch. */
async function keepRefusedWork(request: DeliveryRequest, failed: Failed): Promise<Delivery> {
  const refusal = refusalOf(failed.message);
  const patch = request.redact(await request.git.patchSince(request.startSha));
  const note = refusal
    ? 'The work was not pushed; the whole change is kept as a patch.'
    : `The work could not be pushed (${failed.message}); the whole change is kept as a patch.`;
  return { note, patch, ...(refusal ? { refusal } : {}) };
}

/** 4a. The files the branch changes since it left the base, counted by our git (not asked of GitHub). */
async function filesChanged({ git, base, startSha }: DeliveryRequest): Promise<Delivered['files']> {
  const from = (await git.mergeBase(`refs/remotes/origin/${base}`)) ?? startSha;
  const [changes, counts] = await Promise.all([git.changesBetween(from, 'HEAD'), git.lineCounts(from)]);
  const STATUS = { A: 'added', D: 'removed', M: 'modified', T: 'changed' } as const;
  const files = changes.slice(0, MAX_LISTED_FILES).map((change) => ({
    path: change.path,
    status: STATUS[change.status] ?? 'modified',
    ...(counts.get(change.path) ?? { additions: 0, deletions: 0 }),
  }));
  return { files, more: changes.length > MAX_LISTED_FILES };
}

/**
 * 4b. The pull request: opened with its whole description in one request when the run completed on its own
 * branch (a reused one of ours is described again); otherwise the one already open for the branch, if any.
 */
async function openPullRequest(
  request: DeliveryRequest,
  branch: string,
  delivered: Delivered,
): Promise<{ pr?: Delivery['pr']; note?: string }> {
  const opens = request.result.status === 'completed' && request.openPull;
  const body = request.pull.body(delivered);
  let pr: OpenPull | undefined;
  request.onLanded?.();
  try {
    pr = opens
      ? await request.api.pulls.openPull({
          head: branch,
          base: request.base,
          title: request.pull.title,
          draft: request.pull.draft,
          body,
        })
      : await request.api.pulls.findOpenPull(branch);
  } catch (error) {
    // The work is pushed: say where, rather than fail the run and hide the branch.
    if (!opens) return {};
    const status = statusOf(error);
    return {
      note: `The pull request could not be opened (${status ? `${status}: ` : ''}${errorSentence(error)}); the work is on the branch.`,
    };
  }
  if (!pr) return {};
  const shown = { number: pr.number, url: pr.htmlUrl, reused: pr.reused };
  // A description this action wrote (an earlier run's) is brought up to date; a person's is left alone.
  if (!pr.reused || !pr.ours) return { pr: shown };
  try {
    await request.api.pulls.updatePullBody(pr.number, body);
    return { pr: shown };
  } catch (error) {
    return {
      pr: shown,
      note: `The pull request description could not be brought up to date: ${errorSentence(error)}.`,
    };
  }
}

/**
 * Pushes to the branch; when the name is taken by other work, moves to a fresh name instead of losing it.
 * Any other failure (network, server) is tried again under the same name after a pause.
 */
async function pushSomewhere(git: GitRepo, branch: string): Promise<{ branch?: string; message: string }> {
  let message = '';
  let name = branch;
  let renames = 0;
  for (let attempt = 1; attempt <= PUSH_ATTEMPTS; attempt++) {
    const outcome = await git.push(name);
    if (outcome.ok) return { branch: name, message: '' };
    message = outcome.message;
    if (outcome.rejected) {
      renames++;
      name = `${branch}-${renames + 1}`;
    } else if (refusalOf(message)) {
      break;
    } else if (attempt < PUSH_ATTEMPTS) {
      await new Promise((resolve) => setTimeout(resolve, PUSH_RETRY_DELAY_MS));
    }
  }
  return { message };
}
