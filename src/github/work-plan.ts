// Where a run works and what it starts from: a fresh branch, an earlier run's branch, or a PR's head.
import type { TodoItem } from '../agent/todos.js';
import { branchName, type GitRepo } from '../git/repo.js';
import type { GitHubApi, IssueComment } from './api.js';
import { parseAgentState, type AgentState } from './checklist.js';
import { CONTINUE, type Trigger } from './trigger.js';

/** What an earlier run on this issue was asked and how far it got: data for the model, never its task. */
export interface EarlierRun {
  task: string;
  todos: readonly TodoItem[];
}

export interface WorkPlan {
  kind: 'fresh' | 'resume' | 'pull-request';
  /** The branch the work is committed to and pushed to. */
  branch: string;
  base: string;
  /** The maintainer's instruction for this run: the only text that goes in the model's task slot. */
  task: string;
  /** Set when the run continues an earlier one (`continue` only). */
  earlier?: EarlierRun;
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
  defaultBranch: string;
}

export type SavedState = AgentState & { task?: string; issue?: number };

/** What a saved state must satisfy besides being ours: whose issue, which branch. */
export interface StateRules {
  runId: string;
  issueNumber: number;
  /** Whether the state's branch may be continued. */
  branchAllowed: (branch: string) => boolean;
}

/**
 * The newest agent-state left on this issue by an earlier run. Only comments written by the identity this
 * action writes as count (another bot's lookalike does not), only states that name this issue, and only
 * for a branch the rules allow: anything else could be forged, or copied from another issue.
 */
export async function earlierRun(
  thread: readonly IssueComment[],
  rules: StateRules,
  wroteIt: (comment: IssueComment) => Promise<boolean>,
): Promise<SavedState | undefined> {
  for (const comment of [...thread].reverse()) {
    const state = parseAgentState(comment.body) as SavedState | undefined;
    if (!state || state.runId === rules.runId || state.issue !== rules.issueNumber) continue;
    if (!state.branch || !rules.branchAllowed(state.branch)) continue;
    if (await wroteIt(comment)) return state;
  }
  return undefined;
}

/** The title a plan is shown under: what the earlier run was asked, or this run's task. */
export function headline(plan: WorkPlan): string {
  return plan.earlier?.task || plan.task;
}

export async function planWork(request: PlanRequest): Promise<PlanOutcome> {
  const { trigger, api, git } = request;
  const wroteIt = (comment: IssueComment) => api.wroteIt(comment);
  const rules = (branchAllowed: (branch: string) => boolean): StateRules => ({
    runId: request.runId,
    issueNumber: trigger.issueNumber,
    branchAllowed,
  });
  if (trigger.isPullRequest) {
    const head = await api.pullHead(trigger.issueNumber);
    if (!head.sameRepo) {
      return {
        decline:
          'this pull request comes from a fork, and todo-agent can only push to branches of this repository',
      };
    }
    await git.checkoutRemoteBranch(head.ref);
    // `continue` picks up the list an earlier run on this PR left for its head branch.
    const earlier = trigger.isContinue
      ? await earlierRun(
          request.thread,
          rules((branch) => branch === head.ref),
          wroteIt,
        )
      : undefined;
    return {
      plan: {
        kind: 'pull-request',
        branch: head.ref,
        base: head.base,
        task: earlier ? resumedTask(trigger.task) : trigger.task,
        ...(earlier ? { earlier: earlierOf(earlier) } : {}),
        continuesBranch: true,
      },
    };
  }

  // Only an explicit `continue` resumes, and only onto one of our own branches, never the base or default.
  const ownBranch = (branch: string) =>
    branch.startsWith(request.branchPrefix) &&
    branch !== request.branchPrefix &&
    branch !== request.baseBranch &&
    branch !== request.defaultBranch;
  const earlier = trigger.isContinue
    ? await earlierRun(request.thread, rules(ownBranch), wroteIt)
    : undefined;
  if (earlier?.branch && (await git.remoteBranchExists(earlier.branch))) {
    await git.checkoutRemoteBranch(earlier.branch);
    return {
      plan: {
        kind: 'resume',
        branch: earlier.branch,
        base: earlier.base || request.baseBranch,
        task: resumedTask(trigger.task),
        earlier: earlierOf(earlier),
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
    plan: { kind: 'fresh', branch, base: request.baseBranch, task: trigger.task, continuesBranch: false },
  };
}

function earlierOf(state: SavedState): EarlierRun {
  return { task: state.task?.trim() || '(not recorded)', todos: state.items };
}

/** `continue` plus anything after it: the new instructions of a resumed run. */
function extraInstructions(task: string): string {
  return task
    .replace(CONTINUE, '')
    .replace(/^[\s:,.;!-]+/, '')
    .trim();
}

/** The task slot of a resumed run: continue the earlier work, plus whatever else the maintainer asked now. */
function resumedTask(task: string): string {
  const extra = extraInstructions(task);
  const base = 'Continue the earlier run on this issue: its task and todo list are given below as data.';
  return extra ? `${base}\n\nNew instructions from the maintainer: ${extra}` : base;
}
