// Where a run works and what it starts from: a fresh branch, an earlier run's branch, or a PR's head.
import type { TodoItem } from '../agent/todos.js';
import { allCompleted } from '../agent/todos.js';
import { branchName, type GitRepo } from '../git/repo.js';
import type { GitHubApi, IssueComment } from './api.js';
import { parseAgentState, type AgentState } from './checklist.js';
import { applyEdits, describeEdits, readEdits } from './checklist-edits.js';
import { afterKeyword, CONTINUE, GO, type Trigger } from './trigger.js';

export interface WorkPlan {
  /** `plan`: a plan-only run, which works on no branch and delivers nothing. */
  kind: 'fresh' | 'resume' | 'pull-request' | 'plan';
  /** The branch the work is committed to and pushed to. */
  branch: string;
  base: string;
  task: string;
  resumedTodos?: readonly TodoItem[];
  /** The issue the pull request closes: this one, or for a run on a PR, the one its description closes. */
  closes?: number;
  /** What the starting list is, for the model (e.g. the plan the maintainer approved with `go`). */
  resumeNote?: string;
  /** The maintainer's edits of the checklist since it was written, in words for the model. */
  listEdits?: string;
  /** A sentence for the maintainer in the new checklist (an edit that could not be taken). */
  notice?: string;
  /** Push to the branch as it is (a PR head or an earlier run's branch) rather than to a fresh name. */
  continuesBranch: boolean;
}

export type PlanOutcome = { plan: WorkPlan } | { decline: string };

export interface PlanRequest {
  trigger: Extract<Trigger, { kind: 'run' }>;
  thread: readonly IssueComment[];
  api: GitHubApi;
  git: GitRepo;
  runId: string;
  branchPrefix: string;
  baseBranch: string;
}

/**
 * The newest agent-state left on the thread by an earlier run. Only comments this action wrote count (a bot,
 * or the user of a personal token): a state in anyone else's comment could be forged.
 */
export async function earlierRun(
  thread: readonly IssueComment[],
  runId: string,
  wroteIt: (comment: IssueComment) => Promise<boolean>,
): Promise<SavedRun | undefined> {
  for (const comment of [...thread].reverse()) {
    const state = parseAgentState(comment.body);
    if (state && state.runId !== runId && (await wroteIt(comment)))
      return { ...(state as SavedRun), shown: comment.body };
  }
  return undefined;
}

export async function planWork(request: PlanRequest): Promise<PlanOutcome> {
  const { trigger, api, git } = request;
  if (trigger.isPullRequest) {
    const head = await api.pullHead(trigger.issueNumber);
    if (!head.sameRepo) {
      return {
        decline:
          'this pull request comes from a fork, and todo-agent can only push to branches of this repository',
      };
    }
    await git.checkoutRemoteBranch(head.ref);
    // An earlier run on this PR left a list: `continue` (or more instructions while it is open) picks it up.
    const earlier = await earlierRun(request.thread, request.runId, (comment) => api.wroteIt(comment));
    const closes = /^Closes #(\d+)$/m.exec(head.body)?.[1];
    const where = {
      branch: head.ref,
      base: head.base,
      continuesBranch: true,
      ...(closes ? { closes: Number(closes) } : {}),
    };
    if (trigger.mode === 'plan') return { plan: { kind: 'plan', task: trigger.task, ...where } };
    if (trigger.mode === 'go') {
      const approved = approvedPlan(trigger, earlier);
      return approved ? { plan: { kind: 'pull-request', ...approved, ...where } } : { decline: NO_PLAN };
    }
    const resumes = earlier?.branch === head.ref && wantsResume(earlier, trigger.isContinue);
    return {
      plan: {
        kind: 'pull-request',
        task: resumes ? resumedTask(earlier.task, trigger.task, trigger.isContinue) : trigger.task,
        ...(resumes ? listAsShown(earlier) : {}),
        ...where,
      },
    };
  }

  const earlier = await earlierRun(request.thread, request.runId, (comment) => api.wroteIt(comment));
  // A plan works on the checked-out base and pushes nothing: it lands in the checklist's saved state.
  if (trigger.mode === 'plan') {
    return {
      plan: {
        kind: 'plan',
        branch: '',
        base: request.baseBranch,
        task: trigger.task,
        continuesBranch: false,
      },
    };
  }
  const approved = trigger.mode === 'go' ? approvedPlan(trigger, earlier) : undefined;
  if (trigger.mode === 'go' && !approved) return { decline: NO_PLAN };
  const resumable = earlier?.branch && wantsResume(earlier, trigger.isContinue);
  if (resumable && earlier?.branch && (await git.remoteBranchExists(earlier.branch))) {
    await git.checkoutRemoteBranch(earlier.branch);
    return {
      plan: {
        kind: 'resume',
        branch: earlier.branch,
        base: earlier.base || request.baseBranch,
        task: resumedTask(earlier.task, trigger.task, trigger.isContinue),
        ...listAsShown(earlier),
        continuesBranch: true,
      },
    };
  }
  if (trigger.isContinue && extraInstructions(trigger.task) === '') {
    return { decline: 'there is no earlier run on this issue with pushed work to continue' };
  }
  const branch = branchName(request.branchPrefix, trigger.issueNumber, request.runId);
  await git.createBranch(branch);
  return {
    plan: {
      kind: 'fresh',
      branch,
      base: request.baseBranch,
      task: trigger.task,
      continuesBranch: false,
      ...approved,
    },
  };
}

/** More instructions resume an open run implicitly only if it had a plan; `continue` always asks to. */
function wantsResume(earlier: AgentState, isContinue: boolean): boolean {
  return isContinue || (earlier.items.length > 0 && !allCompleted(earlier.items));
}

/** `continue` plus anything after it: the new instructions of a resumed run. */
function extraInstructions(task: string): string {
  return afterKeyword(task, CONTINUE);
}

/**
 * `go`: the newest plan on the thread (items and ids as saved) as the starting list; words after `go` are
 * more instructions.
 */
function approvedPlan(
  trigger: PlanRequest['trigger'],
  earlier: SavedRun | undefined,
): Pick<WorkPlan, 'task' | 'resumedTodos' | 'resumeNote' | 'listEdits' | 'notice'> | undefined {
  if (!earlier?.planned) return undefined;
  const extra = afterKeyword(trigger.task, GO);
  const original = earlier.task?.trim() || 'Carry out the plan below.';
  return {
    task: extra ? `${original}\n\nNew instructions from the maintainer: ${extra}` : original,
    ...listAsShown(earlier),
    resumeNote:
      'The maintainer approved this plan. Work through it: keep the item ids, and start on the first open item.',
  };
}

const NO_PLAN = 'there is no plan on this thread to run: comment `plan <task>` first';

/**
 * The saved state of an earlier run; `planned` marks a plan that `go` may run; `shown` is its comment's body
 * as it is now, which a maintainer may have edited.
 */
export type SavedRun = AgentState & { task?: string; planned?: boolean; shown?: string };

/**
 * The list a continued run starts from: the saved list with the maintainer's edits of the comment applied
 * (ids kept), and those edits in words for the model. An edit that breaks a list rule is not taken, and the
 * notice says why.
 */
function listAsShown(earlier: SavedRun): Pick<WorkPlan, 'resumedTodos' | 'listEdits' | 'notice'> {
  const edits = earlier.shown ? readEdits(earlier.shown, earlier.items) : [];
  if (edits.length === 0) return { resumedTodos: earlier.items };
  try {
    const items = applyEdits(earlier.items, edits);
    return { resumedTodos: items, listEdits: describeEdits(edits, items) };
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    return {
      resumedTodos: earlier.items,
      notice: `The edited checklist was not taken (${why}); the saved list was used.`,
    };
  }
}

function resumedTask(earlierTask: string | undefined, task: string, isContinue: boolean): string {
  const extra = isContinue ? extraInstructions(task) : task.trim();
  const original = earlierTask?.trim() || 'Continue the work of the earlier run on this issue.';
  return extra ? `${original}\n\nNew instructions from the maintainer: ${extra}` : original;
}
