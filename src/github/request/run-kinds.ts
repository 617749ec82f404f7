// What each kind of run does, in one place. work-plan.ts decides the kind, once, from what was asked and
// where; this module says what follows from it, and the wiring (action/) only asks:
//
// | run                        | plan kind              | tools may write | last look | how the work leaves                    | branch claimed early |
// | -------------------------- | ---------------------- | --------------- | --------- | -------------------------------------- | -------------------- |
// | a task on an issue         | `fresh`                | yes             | yes       | a commit, a push, a new pull request   | yes (signed commits) |
// | `go` (an approved plan)    | `fresh`/`pull-request` | yes             | yes       | as a task; the plan is its list        | as a task            |
// | `continue`                 | `resume`/`pull-request`| yes             | yes       | on the branch the earlier run left     | no (it exists)       |
// | a review follow-up (a PR)  | `pull-request`         | yes             | yes       | on the PR's head; review threads told  | no (it exists)       |
// | a fork's pull request      | `fork`                 | yes             | yes       | one review, or a superseding PR        | no                   |
// | `plan <task>`              | `plan`                 | no              | no        | nothing: the list, in the checklist    | no branch at all     |
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
 * look and the landing; never a plan, which has nothing to look at or land.
 */
export function delivers(plan: WorkPlan): plan is BranchPlan {
  return plan.kind !== 'plan';
}

/** Whether the work goes back as one review of a fork's pull request (else as a pull request of ours). */
export function deliversAsReview(plan: WorkPlan): plan is ForkPlan & { fork: { delivery: 'review' } } {
  return plan.kind === 'fork' && plan.fork.delivery === 'review';
}

/**
 * Whether a signed commit's branch may be claimed on GitHub before delivery: a new branch of this repository
 * (a continued branch exists; a fork's work is answered with a review, or built on its head).
 */
export function claimsBranch(plan: WorkPlan): boolean {
  return plan.kind !== 'plan' && plan.kind !== 'fork' && !plan.continuesBranch;
}
