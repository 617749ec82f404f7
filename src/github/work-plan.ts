// Where a run works and what it starts from: a fresh branch, an earlier run's branch, or a PR's head.
import type { TodoItem } from '../agent/todos.js';
import { allCompleted } from '../agent/todos.js';
import { branchName, type GitRepo } from '../git/repo.js';
import type { GitHubApi, IssueComment } from './api.js';
import { parseAgentState, type AgentState } from './checklist.js';
import { CONTINUE, type Trigger } from './trigger.js';

export interface WorkPlan {
  kind: 'fresh' | 'resume' | 'pull-request';
  /** The branch the work is committed to and pushed to. */
  branch: string;
  base: string;
  task: string;
  resumedTodos?: readonly TodoItem[];
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
): Promise<(AgentState & { task?: string }) | undefined> {
  for (const comment of [...thread].reverse()) {
    const state = parseAgentState(comment.body);
    if (state && state.runId !== runId && (await wroteIt(comment)))
      return state as AgentState & { task?: string };
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
    const resumes = earlier?.branch === head.ref && wantsResume(earlier, trigger.isContinue);
    return {
      plan: {
        kind: 'pull-request',
        branch: head.ref,
        base: head.base,
        task: resumes ? resumedTask(earlier.task, trigger.task, trigger.isContinue) : trigger.task,
        ...(resumes ? { resumedTodos: earlier.items } : {}),
        continuesBranch: true,
      },
    };
  }

  const earlier = await earlierRun(request.thread, request.runId, (comment) => api.wroteIt(comment));
  const resumable = earlier?.branch && wantsResume(earlier, trigger.isContinue);
  if (resumable && earlier?.branch && (await git.remoteBranchExists(earlier.branch))) {
    await git.checkoutRemoteBranch(earlier.branch);
    return {
      plan: {
        kind: 'resume',
        branch: earlier.branch,
        base: earlier.base || request.baseBranch,
        task: resumedTask(earlier.task, trigger.task, trigger.isContinue),
        resumedTodos: earlier.items,
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

/** More instructions resume an open run implicitly only if it had a plan; `continue` always asks to. */
function wantsResume(earlier: AgentState, isContinue: boolean): boolean {
  return isContinue || (earlier.items.length > 0 && !allCompleted(earlier.items));
}

/** `continue` plus anything after it: the new instructions of a resumed run. */
function extraInstructions(task: string): string {
  return task
    .replace(CONTINUE, '')
    .replace(/^[\s:,.;!-]+/, '')
    .trim();
}

function resumedTask(earlierTask: string | undefined, task: string, isContinue: boolean): string {
  const extra = isContinue ? extraInstructions(task) : task.trim();
  const original = earlierTask?.trim() || 'Continue the work of the earlier run on this issue.';
  return extra ? `${original}\n\nNew instructions from the maintainer: ${extra}` : original;
}
