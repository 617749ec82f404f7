// Where a run works and what it starts from: a fresh branch, an earlier run's branch, or a PR's head. The kinds
// of run are decided here, once, from what was asked (the trigger's request) and where (an issue or a PR):
// - a task on an issue: `fresh`, a new branch from the base, delivered as a new pull request;
// - `continue` on an issue: `resume`, the branch and list an earlier run left (with new instructions and
//   nothing to resume, `fresh`; with neither, declined);
// - a task or `continue` on a pull request: `pull-request`, on its head branch (in this repository, and for
//   a review, the agent's own), `continue` picking up the list an earlier run left there;
// - a task on a fork's pull request: `fork`, on its head as this repository serves it (`refs/pull/N/head`),
//   in a local branch that is never pushed; the change goes back as a review of the pull request. With the
//   sandbox off, declined: the contributor's code would run on the runner itself;
// - `plan <task>`: `plan`, read-only, on the base (or the PR's head), delivering nothing but the list;
// - `go`: the plan the thread holds, run as `fresh` on an issue or `pull-request` on a pull request.
// `cancel` and a bare prefix (usage) never get here: action/main.ts answers them.
import type { TodoItem } from '../../agent/todo/todos.js';
import { branchName } from '../../git/branch-name.js';
import type { GitRepo } from '../../git/repo.js';
import type { GitHubApi } from '../api/github-api.js';
import type { IssueComment } from '../api/issues.js';
import { parseAgentState, type AgentState } from '../checklist/state.js';
import { applyEdits, describeEdits, readEdits } from '../checklist/edits.js';
import { closedBy } from '../closes-line.js';
import type { RunTrigger } from './trigger.js';
import { errorMessage } from '../../text/error-sentence.js';

/**
 * What an earlier run on this issue was asked and how far it got: data for the model, never its task. For
 * `go`, the plan the maintainer approved (its task is then this run's task, and `task` is left out).
 */
interface EarlierRun {
  task?: string;
  /** The list to start from: the saved one with the maintainer's edits of the comment applied. */
  todos: readonly TodoItem[];
  /** The maintainer approved this list as a plan (`go`). */
  approved?: boolean;
  /** The maintainer's edits of the checklist since it was written, in words for the model. */
  edits?: string;
}

/**
 * A fork's pull request, as a `fork` run works on it: its head, fetched from this repository (never from the
 * fork's URL), and who wrote it. Its files are the contributor's; the work goes back as one review of it.
 */
export interface ForkHead {
  number: number;
  /** `owner/name` of the fork and its branch: named in words, never fetched from or pushed to. */
  repo: string;
  ref: string;
  /** The fork was deleted (`repo` is then `(deleted fork)`): there is no branch of theirs to push to. */
  deleted?: boolean;
  /** The contributor who opened the pull request. */
  author: string;
  /** The contributor allows edits from maintainers: the work may be pushed onto `ref` (delivery/fork/push.ts). */
  maintainerCanModify: boolean;
  /**
   * How the work goes back: one review of the pull request (nothing pushed), or (`fork_delivery:
   * pull-request`) a branch of this repository built on the head and a pull request that supersedes it.
   */
  delivery: 'review' | 'pull-request';
  /** Why a run asked for `pull-request` gets the review instead, said with the delivery. */
  fallback?: string;
}

/**
 * What a run is: where it works, what it starts from, and (for a fork's pull request) how the work goes back.
 * What each kind then does (writes, last look, delivery, branch claim) is said in run-kinds.ts.
 */
export type WorkPlan = OwnPlan | ForkPlan | PlanOnly;

/** What every run has, whatever its kind. */
interface PlanCommon {
  base: string;
  /** The maintainer's instruction for this run: the only text that goes in the model's task slot. */
  task: string;
  /** Set when the run continues an earlier one (`continue`) or runs a plan (`go`). */
  earlier?: EarlierRun;
  /** The issue the pull request closes: this one, or for a run on a PR, the one its description closes. */
  closes?: number;
  /** A sentence for the maintainer in the new checklist (an edit that could not be taken). */
  notice?: string;
}

/** `plan <task>`: a plan-only run, which reads the base (or the PR's head), works on no branch and delivers nothing. */
interface PlanOnly extends PlanCommon {
  kind: 'plan';
}

/** A run whose work is committed to a branch of this repository and delivered as a pull request. */
export interface OwnPlan extends PlanCommon {
  kind: 'fresh' | 'resume' | 'pull-request';
  /** The branch the work is committed to and pushed to. */
  branch: string;
  /** Push to the branch as it is (a PR head or an earlier run's branch) rather than to a fresh name. */
  continuesBranch: boolean;
}

/** A fork's pull request: the work goes back as its `delivery` says (see ForkHead), on a branch of this run. */
export interface ForkPlan extends Omit<OwnPlan, 'kind'> {
  kind: 'fork';
  fork: ForkHead;
  continuesBranch: false;
}

/** A run that works on a branch: every kind but a plan. */
export type BranchPlan = OwnPlan | ForkPlan;

type PlanOutcome = { plan: WorkPlan } | { decline: string };

interface PlanRequest {
  trigger: RunTrigger;
  thread: readonly IssueComment[];
  api: GitHubApi;
  git: GitRepo;
  runId: string;
  branchPrefix: string;
  baseBranch: string;
  defaultBranch: string;
  /** The tools run in the sandbox (`sandbox: on`): required for a fork's pull request. */
  sandboxed: boolean;
  /** How the work on a fork's pull request goes back (`fork_delivery`). */
  forkDelivery: 'suggestions' | 'pull-request';
}

/**
 * The state a run saves in its checklist comment; `planned` marks a plan that `go` may run; `shown` is the
 * comment's body as it is now, which a maintainer may have edited.
 */
type SavedState = AgentState & { task?: string; issue?: number; planned?: boolean };
type SavedRun = SavedState & { shown: string };

/** What a saved state must satisfy besides being ours: whose issue, and what it may be picked up for. */
export interface StateRules {
  runId: string;
  issueNumber: number;
  /** Whether this state may be picked up: a branch that may be continued, or a plan. */
  accepts: (state: SavedState) => boolean;
}

/**
 * The newest agent-state left on this issue by an earlier run that the rules accept. Only comments written by
 * the identity this action writes as count (another bot's lookalike does not), and only states that name this
 * issue: anything else could be forged, or copied from another issue.
 */
export async function earlierRun(
  thread: readonly IssueComment[],
  rules: StateRules,
  wroteIt: (comment: IssueComment) => Promise<boolean>,
): Promise<SavedRun | undefined> {
  for (const comment of [...thread].reverse()) {
    const state = parseAgentState(comment.body) as SavedState | undefined;
    if (!state || state.runId === rules.runId || state.issue !== rules.issueNumber) continue;
    if (!rules.accepts(state)) continue;
    if (await wroteIt(comment)) return { ...state, shown: comment.body };
  }
  return undefined;
}

/** The title a plan is shown under: what the earlier run was asked, or this run's task. */
export function headline(plan: WorkPlan): string {
  return plan.earlier?.task || plan.task;
}

export async function planWork(request: PlanRequest): Promise<PlanOutcome> {
  const { trigger } = request;
  const asked = trigger.request;
  const find = earlierFinder(request);
  let approved: Approved;
  if (asked.kind === 'go') {
    // `go` runs the newest state on the thread, and only if it is a plan (a later run supersedes it).
    approved = approvedPlan(asked.instructions, await find(() => true));
    if (!approved) return { decline: NO_PLAN };
  }
  if (trigger.isPullRequest) return await planOnPull(request, find, approved);
  if (asked.kind === 'plan') return { plan: planOnBase(request) };
  return await planOnOwnBranch(request, find, approved);
}

/** Finds the newest earlier run on this issue whose saved state `accepts` takes. */
type EarlierFinder = (accepts: StateRules['accepts']) => Promise<SavedRun | undefined>;

/** A plan `go` approved: its task, list and notice. */
type Approved = ReturnType<typeof approvedPlan>;

function earlierFinder({ thread, runId, trigger, api }: PlanRequest): EarlierFinder {
  return async (accepts) =>
    await earlierRun(
      thread,
      { runId, issueNumber: trigger.issueNumber, accepts },
      async (comment) => await api.access.wroteIt(comment),
    );
}

/**
 * A run on a pull request works on its head: a branch of this repository (for a review, only the agent's own),
 * or a fork's head as this repository serves it, in a local branch of this run.
 */
async function planOnPull(
  request: PlanRequest,
  find: EarlierFinder,
  approved: Approved,
): Promise<PlanOutcome> {
  const { trigger, api, git } = request;
  const head = await api.pulls.pullHead(trigger.issueNumber);
  const closes = closedBy(head.body, `${trigger.owner}/${trigger.repo}`);
  const common = { base: head.base, ...(closes === undefined ? {} : { closes }) };
  const asked = trigger.request;
  if (!head.sameRepo) {
    if (!request.sandboxed) return { decline: FORK_UNSANDBOXED };
    const branch = branchName(request.branchPrefix, trigger.issueNumber, request.runId);
    await git.checkoutPullHead(trigger.issueNumber, branch);
    const where = { ...common, branch, continuesBranch: false as const };
    if (asked.kind === 'plan') return { plan: { kind: 'plan', task: asked.task, ...where } };
    const { issueNumber: number } = trigger;
    const how = await forkDelivery(request, head.base);
    const { repo, ref, author, maintainerCanModify, deleted } = head;
    const gone = deleted ? { deleted } : {};
    const fork: ForkHead = { number, repo, ref, author, maintainerCanModify, ...gone, ...how };
    return { plan: { kind: 'fork', fork, ...(approved ?? { task: asked.task }), ...where } };
  }
  // A review is answered on the agent's own pull requests only: a person's branch is theirs to change.
  const isReview = trigger.origin.kind === 'review_comment' || trigger.origin.kind === 'review';
  if (isReview && !(await api.access.wroteIt({ user: head.author }))) {
    return { decline: NOT_OURS };
  }
  await git.checkoutRemoteBranch(head.ref);
  const where = { ...common, branch: head.ref, continuesBranch: true };
  if (asked.kind === 'plan') return { plan: { kind: 'plan', task: asked.task, ...where } };
  if (approved) return { plan: { kind: 'pull-request', ...approved, ...where } };
  // `continue` picks up the list an earlier run on this PR left for its head branch.
  const earlier =
    asked.kind === 'continue'
      ? await find((state) => state.branch === head.ref && !state.planned)
      : undefined;
  return {
    plan: {
      kind: 'pull-request',
      task: earlier && asked.kind === 'continue' ? resumedTask(asked.instructions) : asked.task,
      ...(earlier ? resumed(earlier) : {}),
      ...where,
    },
  };
}

/**
 * How a fork's work goes back: `fork_delivery: pull-request` pushes the contributor's commits to a branch of
 * this repository, so a head that changes anything under `.github/` (workflows that would run here with
 * secrets) gets the review instead, with a sentence that says why.
 */
async function forkDelivery(
  { git, forkDelivery: asked }: PlanRequest,
  base: string,
): Promise<Pick<ForkHead, 'delivery' | 'fallback'>> {
  if (asked === 'suggestions') return { delivery: 'review' };
  const tip = await git.remoteTip(base);
  const from = tip && (await git.mergeBase(tip));
  const changes = from ? await git.changesBetween(from, 'HEAD') : undefined;
  if (changes && !changes.some((change) => change.path.startsWith('.github/')))
    return { delivery: 'pull-request' };
  return { delivery: 'review', fallback: FORK_TOUCHES_GITHUB };
}

/** A plan works on the checked-out base and pushes nothing: it lands in the checklist's saved state. */
function planOnBase({ trigger, baseBranch }: PlanRequest): WorkPlan {
  return { kind: 'plan', base: baseBranch, task: trigger.request.task };
}

/** A run on an issue: `continue` resumes an earlier run's branch; anything else starts a fresh branch. */
async function planOnOwnBranch(
  request: PlanRequest,
  find: EarlierFinder,
  approved: Approved,
): Promise<PlanOutcome> {
  const { trigger, git } = request;
  const asked = trigger.request;
  const continuing = asked.kind === 'continue' ? asked : undefined;
  const earlier = continuing
    ? await find((state) => isOwnBranch(request, state.branch) && !state.planned)
    : undefined;
  if (continuing && earlier?.branch && (await git.remoteBranchExists(earlier.branch))) {
    await git.checkoutRemoteBranch(earlier.branch);
    return {
      plan: {
        kind: 'resume',
        branch: earlier.branch,
        base: earlier.base || request.baseBranch,
        task: resumedTask(continuing.instructions),
        ...resumed(earlier),
        continuesBranch: true,
      },
    };
  }
  if (continuing && continuing.instructions === '') return { decline: NOTHING_TO_CONTINUE };
  const branch = branchName(request.branchPrefix, trigger.issueNumber, request.runId);
  await git.createBranch(branch);
  return {
    plan: {
      kind: 'fresh',
      branch,
      base: request.baseBranch,
      task: asked.task,
      continuesBranch: false,
      ...approved,
    },
  };
}

/** Only an explicit `continue` resumes, and only onto one of our own branches, never the base or default. */
function isOwnBranch(
  { branchPrefix, baseBranch, defaultBranch }: PlanRequest,
  branch: string | undefined,
): boolean {
  return (
    !!branch &&
    branch.startsWith(branchPrefix) &&
    branch !== branchPrefix &&
    branch !== baseBranch &&
    branch !== defaultBranch
  );
}

/** An earlier run to continue: its task as data, and its list as the comment now shows it. */
function resumed(earlier: SavedRun): Pick<WorkPlan, 'earlier' | 'notice'> {
  const { todos, edits, notice } = listAsShown(earlier);
  return {
    earlier: { task: earlier.task?.trim() || '(not recorded)', todos, ...(edits ? { edits } : {}) },
    ...(notice ? { notice } : {}),
  };
}

/**
 * `go`: the newest saved state on the thread, if it is a plan, as the starting list (items and ids as saved,
 * the maintainer's edits applied); its task, the maintainer's own words, is this run's task, and words after
 * `go` are more instructions.
 */
function approvedPlan(
  extra: string,
  earlier: SavedRun | undefined,
): Pick<WorkPlan, 'task' | 'earlier' | 'notice'> | undefined {
  if (!earlier?.planned) return undefined;
  const original = earlier.task?.trim() || 'Carry out the plan below.';
  const { todos, edits, notice } = listAsShown(earlier);
  return {
    task: extra ? `${original}\n\nNew instructions from the maintainer: ${extra}` : original,
    earlier: { todos, approved: true, ...(edits ? { edits } : {}) },
    ...(notice ? { notice } : {}),
  };
}

const NOT_OURS =
  'todo-agent follows up on reviews of the pull requests it opened, and this one was opened by someone else';

const NO_PLAN = 'there is no plan on this thread to run: comment `plan <task>` first';

const FORK_UNSANDBOXED =
  "this pull request comes from a fork, and todo-agent runs a contributor's code only in its sandbox, which this workflow turns off (`sandbox: off`): remove that input (or set `sandbox: on`) to let it work on pull requests from forks";

const FORK_TOUCHES_GITHUB =
  "This pull request's head changes files under `.github/`, which a branch of this repository would run with its secrets, so the work goes back as a review instead of a pull request of our own (`fork_delivery: pull-request`).";

const NOTHING_TO_CONTINUE = 'there is no earlier run on this issue with pushed work to continue';

/**
 * The list a continued run starts from: the saved list with the maintainer's edits of the comment applied
 * (ids kept), and those edits in words for the model. An edit that breaks a list rule is not taken, and the
 * notice says why.
 */
function listAsShown(earlier: SavedRun): { todos: readonly TodoItem[]; edits?: string; notice?: string } {
  const edits = readEdits(earlier.shown, earlier.items, earlier.cut);
  if (edits.length === 0) return { todos: earlier.items };
  try {
    const items = applyEdits(earlier.items, edits);
    return { todos: items, edits: describeEdits(edits, items) };
  } catch (error) {
    const why = errorMessage(error);
    return {
      todos: earlier.items,
      notice: `The edited checklist was not taken (${why}); the saved list was used.`,
    };
  }
}

/** The task slot of a resumed run: continue the earlier work, plus whatever else the maintainer asked now. */
function resumedTask(extra: string): string {
  const base = 'Continue the earlier run on this issue: its task and todo list are given below as data.';
  return extra ? `${base}\n\nNew instructions from the maintainer: ${extra}` : base;
}
