// What a run hands over once the agent is done: every git directory of the workspace made safe for later
// steps (its configuration restored), then the work committed in our own git directory, pushed and opened
// as a pull request (a plan delivers nothing), or pushed onto a fork's pull request's branch, and review threads
// answered.
import type { AgentResult } from '../agent/events.js';
import { log } from '../runner/output.js';
import type { Delivery } from '../delivery/deliver.js';
import type { DeliverySession, LandRequest } from '../delivery/session.js';
import { commitMessage } from '../delivery/messages/commit-message.js';
import { pullBody } from '../delivery/messages/pull-body.js';
import { replyInThreads } from '../delivery/thread-replies.js';
import { headline, type ForkPlan, type WorkPlan } from '../github/request/work-plan.js';
import {
  deliversAsReview,
  opensPullRequest,
  supersedesPullRequest,
  worksOnFork,
} from '../github/request/run-kinds.js';
import { deliverForkReview, type ForkReviewRequest } from '../delivery/fork/review.js';
import { forkLocation, pushOntoFork, type ForkPushRequest } from '../delivery/fork/push.js';
import { errorSentence } from '../text/error-sentence.js';
import { redactAndCut } from '../text/redact.js';
import type { LiveChecklist } from '../github/checklist/live.js';
import type { RepoLocation } from '../github/urls.js';
import type { JobRequest, Prepared } from './prepare/prepare.js';
import { traced } from '../runner/trace.js';

/**
 * Delivers the work. A delivery that failed outright turns the run into a failure, but keeps everything the
 * agent did; once the work is pushed, the review threads it addressed are answered.
 */
export async function deliverWork(
  request: JobRequest,
  prepared: Prepared,
  agentResult: AgentResult,
  checklist: Pick<LiveChecklist, 'url' | 'readCommentBack'>,
  /** Absent for a run that delivers nothing (a plan: job.ts asks run-kinds.ts's `delivers`). */
  session: DeliverySession | undefined,
): Promise<{ result: AgentResult; delivery: Delivery }> {
  const { trigger, api } = request;
  const { git, startSha, threads, plan } = prepared;
  const { delivery, error } = await deliverSafely(async () => {
    // Every tool process is gone (the sandbox is closed); what the model configured goes too, before our
    // git stages anything (staging a nested repository reads its refs).
    await traced("workspace's git directories repaired", prepared.guard.repair());
    // A plan delivers nothing (it has no session): whatever its commands left in the workspace is not committed.
    if (!session) return {};
    let declined: string | undefined;
    if (worksOnFork(plan)) {
      // Onto the contributor's own branch first, where they allow it and the token can; else as chosen.
      const forkDelivery = forkDeliveryOf(request, { ...prepared, plan }, agentResult, checklist);
      const onto = await traced('pushed onto the fork', pushOntoFork(forkDelivery));
      if ('delivery' in onto) return onto.delivery;
      declined = onto.declined;
      if (deliversAsReview(plan)) {
        const fallback = [declined, plan.fork.fallback].filter(Boolean).join(' ') || undefined;
        return await deliverForkReview({ ...forkDelivery, fork: { ...plan.fork, fallback } });
      }
    }
    const mayChangeWorkflows = await request.api.access.mayChangeWorkflows();
    const delivered = await traced(
      'landed (commit, push, pull request)',
      session.land({
        ...deliveryOf(request, prepared, agentResult, checklist),
        ...(mayChangeWorkflows === undefined ? {} : { mayChangeWorkflows }),
      }),
    );
    await traced('commit handed back to the workspace', returnCommitToWorkspace(prepared));
    if (supersedesPullRequest(plan) && delivered.pr)
      await pointToSuccessor(request, plan, delivered.pr.number);
    const note = [declined, delivered.note].filter(Boolean).join(' ');
    return { ...delivered, ...(note ? { note } : {}) };
  });
  const result: AgentResult = error ? { ...agentResult, status: 'failed', reason: error } : agentResult;
  // Pushed to a branch here, or onto the contributor's own branch of a fork's pull request: either way the
  // commit is on the pull request, and a thread it addressed is told where.
  if (delivery.pushedBranch || delivery.pushedToFork) {
    const pushedTo = commitsAt(request, plan, delivery);
    await replyInThreads({ api, git, startSha, pushedTo, trigger, threads, plan, result });
  }
  return { result, delivery };
}

/** Where the pushed commit is on the web: the fork whose branch it was pushed onto, else this repository. */
function commitsAt({ settings }: JobRequest, plan: WorkPlan, delivery: Delivery): RepoLocation {
  const fork =
    delivery.pushedToFork && worksOnFork(plan)
      ? forkLocation({ serverUrl: settings.serverUrl, fork: plan.fork })
      : undefined;
  return fork ?? settings;
}

/** `fork_delivery: pull-request`: the pull request's first lines name the one it supersedes and credit its author. */
function supersedes(plan: WorkPlan): string {
  if (!supersedesPullRequest(plan)) return '';
  const { number, author, repo, ref } = plan.fork;
  return `Supersedes #${number}: built on @${author}'s commits from \`${repo}:${ref}\` (kept as they are, with their authorship), with todo-agent's work on top. Merging this pull request supersedes #${number}; it can then be closed.\n\n`;
}

/** The superseded pull request gets one line that links its successor. */
async function pointToSuccessor({ api }: JobRequest, plan: ForkPlan, successor: number): Promise<void> {
  const line = `todo-agent's work on this pull request is in #${successor}, built on these commits: merging it supersedes this one.`;
  await api.issues.createComment(plan.fork.number, line).catch((error: unknown) => {
    log.warning(`The pull request could not be pointed to #${successor}: ${errorSentence(error)}`);
  });
}

/**
 * A fork's pull request: what the push onto the contributor's branch (delivery/fork/push.ts) and the review
 * that carries the work back otherwise (delivery/fork/review.ts) are given.
 */
function forkDeliveryOf(
  request: JobRequest,
  prepared: Prepared & { plan: ForkPlan },
  result: AgentResult,
  checklist: Pick<LiveChecklist, 'url' | 'readCommentBack'>,
): ForkReviewRequest & ForkPushRequest {
  const { commitMessage, redact } = deliveryOf(request, prepared, result, checklist);
  return {
    git: prepared.git,
    api: request.api,
    result,
    startSha: prepared.startSha,
    base: prepared.plan.base,
    fork: prepared.plan.fork,
    serverUrl: request.settings.serverUrl,
    completed: result.status === 'completed',
    commitMessage,
    redact,
    ...(checklist.url ? { checklistUrl: checklist.url } : {}),
  };
}

/** Where the work goes and under what words: branch, base, commit message and pull request. */
function deliveryOf(
  { settings, trigger, redactor }: JobRequest,
  { plan }: Prepared,
  result: AgentResult,
  checklist: Pick<LiveChecklist, 'url' | 'readCommentBack'>,
): LandRequest {
  const redact = (text: string) => redactor.redact(text);
  return {
    result,
    base: plan.base,
    openPull: opensPullRequest(plan),
    redact,
    // The checklist's last look goes beside the pull request, the delivery's last request.
    onLanded: () => checklist.readCommentBack(),
    // Git is not GitHub's API: the commit message is redacted (before it is cut) on its way to git here.
    commitMessage: redact(
      commitMessage({
        task: redact(headline(plan)),
        items: result.todos,
        ...(trigger.senderId === undefined
          ? {}
          : { requester: { login: trigger.sender, id: trigger.senderId } }),
        runUrl: settings.runUrl,
      }),
    ),
    pull: {
      title: firstLine(headline(plan), 100, redact),
      draft: settings.inputs.draft,
      body: ({ files, heldBack, unsignedBecause, workflowPatch }) =>
        supersedes(plan) +
        pullBody({
          ...closesOf(plan, trigger.issueNumber),
          result,
          ...(checklist.url ? { checklistUrl: checklist.url } : {}),
          files,
          heldBack,
          ...(unsignedBecause ? { unsignedBecause } : {}),
          ...(workflowPatch ? { workflowPatch } : {}),
        }),
    },
  };
}

/** The commit goes back into the workspace's repository for later steps; failing that, a warning only. */
async function returnCommitToWorkspace({ ownDir, git, startSha }: Prepared): Promise<void> {
  await ownDir.returnCommitToWorkspace(git, startSha).catch((error: unknown) => {
    log.warning(`The commit could not be handed back to the workspace's repository: ${errorSentence(error)}`);
  });
}

/** Commit, push and pull request, where any throw becomes a sentence rather than a lost result. */
async function deliverSafely(step: () => Promise<Delivery>): Promise<{ delivery: Delivery; error?: string }> {
  try {
    return { delivery: await step() };
  } catch (error) {
    return { delivery: {}, error: `the work could not be delivered: ${errorSentence(error)}` };
  }
}

/**
 * The issue the pull request closes: this one when it is a new one of ours on an issue, else the one the pull
 * request's description closes. A fork's pull request is named by the line that supersedes it, never by a
 * `Closes` line (a closing keyword names an issue): its successor closes the issue it closed, if any.
 */
function closesOf(plan: WorkPlan, issueNumber: number): { closes?: number } {
  if (opensPullRequest(plan) && !worksOnFork(plan)) return { closes: issueNumber };
  return plan.closes === undefined ? {} : { closes: plan.closes };
}

/** The first non-empty line, redacted before it is cut (the API's own redaction would miss half a secret). */
function firstLine(text: string, max: number, redact: (text: string) => string): string {
  const line =
    text
      .split('\n')
      .find((l) => l.trim())
      ?.trim() ?? 'todo-agent changes';
  return redactAndCut(line, max, redact);
}
