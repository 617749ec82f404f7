// What each kind of run does, in one place. work-plan.ts decides the kind, once, from what was asked and
// where; this module says what follows from it, and the wiring (action/, delivery/) only asks:
//
// | run                        | plan kind              | tools may write | last look | working branch | how the work leaves                    | opens a PR of ours | signed commit (signed_commits) |
// | -------------------------- | ---------------------- | --------------- | --------- | -------------- | -------------------------------------- | ------------------ | ------------------------------ |
// | a task on an issue         | `fresh`                | yes             | yes       | a new one      | a commit, a push, a new pull request   | yes, closing it    | yes, its branch claimed early  |
// | `go` (an approved plan)    | `fresh`/`pull-request` | yes             | yes       | as a task      | as a task; the plan is its list        | as a task          | as a task                      |
// | `continue`                 | `resume`/`pull-request`| yes             | yes       | the earlier    | on the branch the earlier run left     | `resume`: yes      | yes (the branch exists)        |
// | a review follow-up (a PR)  | `pull-request`         | yes             | yes       | the PR's head  | on the PR's head; review threads told  | no (it is one)     | yes (the branch exists)        |
// | a fork's pull request      | `fork`                 | yes             | yes       | a local one    | onto the fork's branch where allowed,  | superseding PR     | no                             |
// |                            |                        |                 |           |                | else one review, or a superseding PR   | only               |                                |
// | `plan <task>`              | `plan`                 | no              | no        | none           | nothing: the list, in the checklist    | no                 | no branch at all               |
//
// A fork's run (`worksOnFork`) also tells the model that the head's files are a contributor's, and is pushed
// onto the contributor's own branch first where they allow edits from maintainers (`triesPushOntoFork`).
import type { RunRequest } from './trigger.js';
import type { BranchPlan, ForkPlan, WorkPlan } from './work-plan.js';

/**
 * What the tools may do to the workspace (the sandbox's WorkspaceAccess), known from the request alone,
 * before the plan is: a plan only reads it.
 */
export function workspaceAccess(request: RunRequest): 'read-write' | 'read-only' {
  return request.kind === 'plan' ? 'read-only' : 'read-write';
}

/**
 * Whether the run gets a delivery session (delivery/session.ts): every run that delivers, for the model's last
 * look and the landing; never a plan, which has nothing to look at or land (its model only plans, and the run
 * record says nothing of a delivery).
 */
export function delivers(plan: WorkPlan): plan is BranchPlan {
  return plan.kind !== 'plan';
}

/** The branch the work is committed to (the checklist's saved state, the model's note); none for a plan. */
export function workingBranch(plan: WorkPlan): string | undefined {
  return delivers(plan) ? plan.branch : undefined;
}

/**
 * Whether the working branch is a contributor's pull request from a fork: its files are data to the model,
 * and the work goes back by the fork's own ways (delivery/fork/), never straight onto a branch of ours.
 */
export function worksOnFork(plan: WorkPlan): plan is ForkPlan {
  return plan.kind === 'fork';
}

/**
 * Whether the work is first pushed onto the contributor's own branch: the fork is still there and they allow
 * edits from maintainers (the token may still be unable to: delivery/fork/push.ts says why, and the run goes
 * on as `fork.delivery` says).
 */
export function triesPushOntoFork(plan: WorkPlan): plan is ForkPlan {
  return worksOnFork(plan) && !plan.fork.deleted && plan.fork.maintainerCanModify;
}

/** Whether the work goes back as one review of a fork's pull request (else as a pull request of ours). */
export function deliversAsReview(plan: WorkPlan): plan is ForkPlan & { fork: { delivery: 'review' } } {
  return worksOnFork(plan) && plan.fork.delivery === 'review';
}

/**
 * Whether a fork's work goes to a pull request of this repository built on the contributor's commits, which
 * names the original and supersedes it (`fork_delivery: pull-request`).
 */
export function supersedesPullRequest(
  plan: WorkPlan,
): plan is ForkPlan & { fork: { delivery: 'pull-request' } } {
  return worksOnFork(plan) && plan.fork.delivery === 'pull-request';
}

/**
 * Whether landing the work opens (or reuses) a pull request of ours, which closes the issue the run was asked
 * on (or, superseding a fork's, the issue that one closes): not on a pull request's own head (it is one, and
 * closes what its description says), not as a review, never for a plan.
 */
export function opensPullRequest(plan: WorkPlan): boolean {
  return delivers(plan) && plan.kind !== 'pull-request' && !deliversAsReview(plan);
}

/**
 * Whether the commit goes through GitHub's API, signed, when signed commits are on: the work on a branch of
 * this repository, new or continued; not a fork's (answered with a review, or pushed on the contributor's
 * commits with git). A new branch is then claimed early, at the model's last look (delivery/branch-claim.ts).
 */
export function signsCommits(plan: WorkPlan): boolean {
  return delivers(plan) && !worksOnFork(plan);
}
