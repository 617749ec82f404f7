// One triggered run: prepare where to work, keep the checklist comment live, run the agent, deliver the
// work, report. Each step lives in its own module; this file is the order they run in.
import { basename } from 'node:path';
import type { AgentResult } from '../agent/events.js';
import { runAgent } from '../agent/loop.js';
import type { Delivery } from '../delivery/deliver.js';
import { answer } from '../github/answer.js';
import type { RunVerdict } from '../github/checklist/outcome.js';
import { logObserver } from '../runner/log.js';
import { RunSummary } from '../runner/summary.js';
import { agentOptions } from './agent-options.js';
import { deliverWork } from './deliver-work.js';
import { DeliverySession } from '../delivery/session.js';
import { openChecklist } from './live-checklist.js';
import { prepare, type JobRequest } from './prepare.js';
import { recordDelivery, recordForSummary } from './record.js';
import { isolationOf } from './tool-sandbox.js';

export type JobOutcome =
  | {
      /** How the run ended (`stepOutcome`): what the checklist, the outputs, the summary and the record say. */
      status: RunVerdict;
      result: AgentResult;
      delivery: Delivery;
      branch?: string;
      /** The step's error when it fails: why, naming the rule GitHub enforces when one kept work out. */
      failure?: string;
      /** The step's warning when a part of the work was left out of the pull request: which part, and why. */
      warning?: string;
    }
  | { status: 'skipped'; declined: string };

export async function runJob(request: JobRequest): Promise<JobOutcome> {
  const { settings, trigger, api } = request;
  // Asked while the run is prepared: the model's environment note and delivery both need it.
  void api.access.mayChangeWorkflows();
  const prepared = await prepare(request);
  if ('decline' in prepared) {
    await answer(api, trigger, `todo-agent did not start: ${prepared.decline}.`);
    return { status: 'skipped', declined: prepared.decline };
  }
  const checklist = await openChecklist(
    {
      settings,
      issueNumber: trigger.issueNumber,
      api,
      sandbox: isolationOf(prepared.sandbox),
      ...(prepared.mcp ? { mcp: prepared.mcp.summary } : {}),
    },
    prepared.plan,
  );
  // The delivery, opened before the loop: the model's last look previews it, and it may claim the branch then.
  const session = new DeliverySession({
    git: prepared.git,
    api,
    branch: prepared.plan.branch,
    startSha: prepared.startSha,
    // A fork's pull request is answered with a review: no branch is claimed for it.
    signed: settings.inputs.signed_commits && prepared.plan.kind !== 'fork',
    continuesBranch: prepared.plan.continuesBranch,
  });
  try {
    const summary = new RunSummary();
    const { record } = request;
    const observers = [
      checklist.observer,
      summary.observer,
      logObserver(),
      ...(record ? [record.observer] : []),
    ];
    // A plan delivers nothing, so its model is shown no last look.
    const review = prepared.plan.kind === 'plan' ? undefined : () => session.preview();
    const changedFiles = review && (() => session.changedFiles());
    const options = await agentOptions(request, prepared, {
      observers,
      inbox: checklist.inbox,
      review,
      ...(changedFiles ? { changedFiles } : {}),
    });
    // The servers go first (each is stopped, then killed with everything it started), then the sandbox.
    const agentResult = await runAgent(options).finally(async () => await prepared.runtime.close());
    checklist.hold();
    const { result, delivery } = await deliverWork(request, prepared, agentResult, checklist, session);
    // A claim the delivery never reached (it broke off before landing) goes now.
    await session.abandon();
    const failedDelivery = result.status !== agentResult.status ? result.reason : undefined;
    await recordDelivery(record, prepared, delivery, failedDelivery);
    const step = stepOutcome(result, delivery);
    // The record's last line says what the step's outputs say.
    record?.result({ status: step.status, reason: step.failure ?? result.reason });
    // The reaction that says how it ended goes beside the final checklist write (a round trip fewer).
    const [body] = await Promise.all([
      checklist.finish(result, delivery, record && basename(record.path), step.status),
      request.onDelivered?.(result.status, delivery),
    ]);
    await summary.write(body, await recordForSummary(record), api.reads);
    const pushed = delivery.pushedBranch;
    return { ...step, result, delivery, ...(pushed ? { branch: pushed } : {}) };
  } catch (error) {
    await session.abandon();
    await checklist.fail(error);
    throw error;
  } finally {
    // A throw anywhere before delivery put them right: do it now, once no tool is left.
    await prepared.runtime.close();
    await prepared.guard.finish();
    await prepared.snapshot.remove();
  }
}

/**
 * How the run ended, told once: the checklist's heading, the step's result and `status` output, the summary
 * (the checklist's body) and the record all say this. Work kept as a patch because it did not reach GitHub
 * fails the step, its error naming the rule GitHub enforces. A pull request opened without a part GitHub's
 * rules kept out (a workflow file the token may not push) is `partial`: the step passes with a warning that
 * names the part and where its patch is. A cancelled run stays cancelled.
 */
export function stepOutcome(
  result: AgentResult,
  delivery: Delivery,
): { status: RunVerdict; failure?: string; warning?: string } {
  if (result.status === 'failed') return { status: 'failed', failure: `todo-agent failed: ${result.reason}` };
  if (result.status === 'cancelled') return { status: 'cancelled' };
  const rule = (refusal: { rule: string; advice: string }) => `${refusal.rule}. ${refusal.advice}`;
  if (delivery.patch !== undefined) {
    const why = delivery.refusal
      ? `GitHub's rule: ${rule(delivery.refusal)}`
      : (delivery.note ?? 'the push failed');
    return {
      status: 'failed',
      failure: `todo-agent could not deliver the work (kept as a patch in the comment and the run record): ${why}`,
    };
  }
  if (delivery.withheld) {
    const { paths, refusal } = delivery.withheld;
    const where = delivery.pr ? 'attached to the pull request' : 'kept in the run record';
    const text = `todo-agent delivered the work without ${paths.join(', ')} (their change is ${where} as a patch): ${rule(refusal)}`;
    return result.status === 'completed'
      ? { status: 'partial', warning: text }
      : { status: result.status, warning: text };
  }
  return { status: result.status };
}
