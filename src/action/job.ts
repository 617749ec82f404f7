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
import { delivers } from '../github/request/run-kinds.js';
import { openChecklist } from './live-checklist.js';
import type { LiveChecklist } from '../github/checklist/live.js';
import { prepare, type JobRequest, type Prepared } from './prepare/prepare.js';
import { recordDelivery, recordForSummary } from './record.js';
import { isolationOf } from './prepare/tool-sandbox.js';
import { traced, traceStep } from '../runner/trace.js';
import type { AgentObserver } from '../agent/events.js';

export type JobOutcome =
  | {
      /** How the run ended (`stepOutcome`): what the checklist, the outputs, the summary and the record say. */
      status: RunVerdict;
      result: AgentResult;
      delivery: Delivery;
      /** The `branch` output: a branch of ours, or the fork's branch the work was pushed onto (`owner/repo:branch`). */
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
  const started = await traced('started (thread, plan, instructions)', prepare(request));
  if ('decline' in started) {
    await answer(api, trigger, `todo-agent did not start: ${started.decline}.`);
    return { status: 'skipped', declined: started.decline };
  }
  // The tools' part comes beside the first model request; the first tool call waits for it (tools-ready.ts).
  const ready: Promise<Prepared> = started.tools.then((tools) => ({ ...started, ...tools }));
  ready.catch(() => undefined);
  // The delivery, opened before the loop for a run that delivers (a plan does not): the model's last look
  // previews it, and it may claim the branch then.
  const plan = started.plan;
  const session = delivers(plan)
    ? ready.then(({ git, startSha }) =>
        DeliverySession.forPlan(plan, { git, api, startSha, signedCommits: settings.inputs.signed_commits }),
      )
    : undefined;
  session?.catch(() => undefined);
  // Opened inside the try: a checklist that could not be opened still leaves the tools closed and the
  // workspace's git directories finished.
  let opened: LiveChecklist | undefined;
  try {
    const summary = new RunSummary();
    const { record } = request;
    // A plan delivers nothing, so its model is shown no last look.
    const review = session && (async () => (await session).preview());
    const changedFiles = session && (async () => (await session).changedFiles());
    // The tools' runtime lives for the agent's run alone: closed once, here, whatever happened (the servers
    // first, each stopped, then killed with everything it started, then the sandbox), before delivery.
    let agentResult: AgentResult;
    let checklist: LiveChecklist;
    try {
      checklist = opened = await traced(
        'checklist opened',
        openChecklist(
          {
            settings,
            issueNumber: trigger.issueNumber,
            api,
            ...(started.mcp ? { mcp: started.mcp.summary } : {}),
          },
          plan,
        ),
      );
      // The footer names the isolation once the sandbox is built, and how the MCP servers fared once they have
      // started: each rides along with the next write.
      ready.then(
        ({ sandbox }) => checklist.later({ sandbox: isolationOf(sandbox) }),
        () => undefined,
      );
      const mcp = started.mcp;
      void mcp?.starting.settled.then(() => checklist.later({ mcp: mcp.summary }));
      const observers = [
        checklist.observer,
        summary.observer,
        logObserver(),
        ...(record ? [record.observer] : []),
        traceObserver(),
      ];
      const options = await traced(
        "agent's options",
        agentOptions(request, started, ready, {
          observers,
          inbox: checklist.inbox,
          review,
          ...(changedFiles ? { changedFiles } : {}),
        }),
      );
      agentResult = await runAgent(options);
    } finally {
      await traced('tools closed (servers, sandbox)', closeTools(ready));
    }
    const prepared = await ready;
    checklist.hold();
    const { result, delivery } = await traced(
      'work delivered',
      deliverWork(request, prepared, agentResult, checklist, await session),
    );
    // A claim the delivery never reached (it broke off before landing) goes now.
    if (session) await traced('branch claim settled', (await session).abandon());
    const failedDelivery = result.status !== agentResult.status ? result.reason : undefined;
    await recordDelivery(record, prepared, delivery, failedDelivery);
    const step = stepOutcome(result, delivery);
    // The record's last line says what the step's outputs say.
    record?.result({ status: step.status, reason: step.failure ?? result.reason });
    // The reaction that says how it ended goes beside the final checklist write (a round trip fewer).
    const [body] = await traced(
      'checklist finished, reaction',
      Promise.all([
        checklist.finish(result, delivery, record && basename(record.path), step.status),
        request.onDelivered?.(result.status, delivery),
      ]),
    );
    await traced('job summary written', summary.write(body, await recordForSummary(record), api.reads));
    // The `branch` output: our branch, or the contributor's (`owner/repo:branch`) the work was pushed onto.
    const pushed = delivery.pushedBranch ?? delivery.pushedToFork;
    return { ...step, result, delivery, ...(pushed ? { branch: pushed } : {}) };
  } catch (error) {
    await (await session?.catch(() => undefined))?.abandon();
    await opened?.fail(error);
    throw error;
  } finally {
    // A throw anywhere before delivery put them right: do it now (the tools were closed above).
    const prepared = await ready.catch(() => undefined);
    // Puts right what nobody did, then removes our own git directory (or leaves it to the post step when
    // putting right failed). Without the tools' part, no tool ran and the post step was told nothing: ours.
    if (prepared) await traced("workspace's git directories finished", prepared.guard.finish());
    else await traced('own git directory removed', started.ownDir.remove());
    await traced('trusted snapshot removed', started.snapshot.remove());
  }
}

/** Closes the tools' runtime once it is up (a tools' part that failed left nothing open). */
async function closeTools(ready: Promise<Prepared>): Promise<void> {
  await (await ready.catch(() => undefined))?.runtime.close();
}

/** Marks the first model request and the last answer in the run's trace (src/runner/trace.ts). */
function traceObserver(): AgentObserver {
  let asked = false;
  return (event) => {
    if (event.type === 'request' && !asked) {
      asked = true;
      traceStep('first model request sent');
    }
    if (event.type === 'end') traceStep('the agent ended (last model answer read)');
  };
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
  if (delivery.workflowPatch) {
    const { paths, refusal } = delivery.workflowPatch;
    const where = delivery.pr ? 'attached to the pull request' : 'kept in the run record';
    const text = `todo-agent delivered the work without ${paths.join(', ')} (their change is ${where} as a patch): ${rule(refusal)}`;
    return result.status === 'completed'
      ? { status: 'partial', warning: text }
      : { status: result.status, warning: text };
  }
  return { status: result.status };
}
