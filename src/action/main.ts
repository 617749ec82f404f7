// The action: read the event, decide whether and for whom to run, run the job, report the outcome.
import { GitHubApi } from '../github/api/github-api.js';
import type { Reaction } from '../github/api/issues.js';
import { answer } from '../github/answer.js';
import { cancelRun } from '../github/cancel.js';
import { canWrite } from '../github/permissions.js';
import { dispatchTrigger } from '../github/request/issue-triggers.js';
import {
  reactionTarget,
  taskProblem,
  type RunTrigger,
  type Trigger,
  type TriggerSource,
} from '../github/request/trigger.js';
import type { RunRecord } from '../record/run-record.js';
import { startRecord } from './record.js';
import type { EarlyEyes, Start } from './start.js';
import { lookAhead, waitTurn } from './wait-turn.js';
import { runUrl } from '../github/urls.js';
import { errorSentence } from '../text/error-sentence.js';
import type { JobOutcome } from './job.js';
import type { Delivery } from '../delivery/deliver.js';
import { readThread } from './prepare/thread-reads.js';
import { addSecret, log, setFailed, setOutput } from '../runner/output.js';
import { traced, traceLines } from '../runner/trace.js';
import { structuredOutputFailure, structuredOutputJson } from '../runner/summary.js';
import { redactor } from '../text/redact.js';
import { secretValues, type Settings } from '../settings/settings.js';

export type RunStatus =
  'completed' | 'partial' | 'incomplete' | 'failed' | 'refused' | 'skipped' | 'cancelled' | 'planned';

/** Runs the action from what src/index.ts read and sent first (start.ts). */
export async function run(start: Promise<Start>): Promise<void> {
  const secrets = secretValues(process.env);
  for (const secret of secrets) addSecret(secret);
  // Once a run has been acknowledged (👀), a failure of any kind is acknowledged too (😕).
  let acknowledged: { api: GitHubApi; trigger: TriggerSource } | undefined;
  let record: RunRecord | undefined;
  try {
    const { settings, asked, eyes } = await start;
    if (asked.kind === 'skip') {
      log.info(`Nothing to do: ${asked.reason}.`);
      setOutputs('skipped');
      return;
    }
    for (const notice of settings.notices) log.warning(notice);
    const api = new GitHubApi({
      token: settings.inputs.github_token,
      owner: settings.owner,
      repo: settings.repo,
      baseUrl: settings.apiUrl,
      warn: log.warning,
      ...(eyes ? { writeBefore: eyes.answer } : {}),
    });
    // A dispatch names its issue; what a comment's payload carries is read from GitHub.
    const trigger =
      asked.kind === 'dispatch' ? dispatchTrigger(asked, await api.issues.issue(asked.issueNumber)) : asked;
    if (trigger.kind === 'skip') throw new Error(trigger.reason);
    // Issue 20: nothing waits for the 👀; the thread's reads and the queue's first look go beside it and the
    // gate's permission check, and the job's code (the agent, the SDK) loads only once the 👀 is on its way.
    // Who it comes back as tells the token's kind (api.mayChangeWorkflows): the api is told it is on its way.
    api.access.reacting(eyes ? confirmEyes(api, trigger, eyes) : react(api, trigger, 'eyes'));
    const running = trigger.kind === 'run' && trigger.request.kind !== 'cancel';
    const reads = running ? readThread(api, trigger) : undefined;
    const queue = running ? lookAhead(api, settings) : undefined;
    const job = traced("the job's code loaded", import('./job.js'));
    job.catch(() => undefined);
    record = startRecord(settings, trigger);
    acknowledged = { api, trigger };
    const run = await traced('gate (who asked may run it)', gate(api, trigger, settings));
    if (typeof run === 'string') {
      record?.result({ status: run });
      setOutputs(run);
      return;
    }
    if (run.request.kind === 'cancel') {
      const cancelled = await cancelRun(api, run, settings.runId, (id) => runUrl(settings, id));
      await react(api, trigger, cancelled.status === 'failed' ? 'confused' : '+1');
      record?.result({ status: cancelled.status, reason: cancelled.reply });
      setOutputs(cancelled.status);
      if (cancelled.status === 'failed') setFailed(cancelled.reply);
      return;
    }
    const controller = cancelOnSignals();
    // Requests on one thread run one at a time, in order (wait-turn.ts); `/agent cancel` above never waits.
    const turn = await traced(
      'waited our turn',
      waitTurn({ api, trigger: run, settings, signal: controller.signal, record, queue }),
    );
    if (turn === 'cancelled') {
      record?.result({ status: 'cancelled', reason: 'the run was cancelled while it waited its turn' });
      setOutputs('cancelled');
      return;
    }
    const { runJob } = await job;
    const outcome = await runJob({
      settings,
      trigger: run,
      api,
      redactor,
      secrets,
      signal: controller.signal,
      record,
      ...(reads ? { reads } : {}),
      onDelivered: async (status, delivery) => {
        if (status === 'cancelled') return;
        const fine = (status === 'completed' || status === 'planned') && !undelivered(delivery);
        // Beside the final checklist write, not after it: the run's last round trip is shared.
        await react(api, trigger, delivery.pr ? 'rocket' : fine ? '+1' : 'confused', { beside: true });
      },
    });
    if (!('result' in outcome)) record?.result({ status: outcome.status, reason: outcome.declined });
    report(outcome);
  } catch (error) {
    if (acknowledged) await react(acknowledged.api, acknowledged.trigger, 'confused');
    record?.result({ status: 'failed', reason: errorSentence(error) });
    setOutputs('failed');
    setFailed(`todo-agent failed: ${errorSentence(error)}`);
  } finally {
    await traced('run record closed', record?.close() ?? Promise.resolve()).catch((error: unknown) =>
      log.warning(`the run record is incomplete: ${errorSentence(error)}`),
    );
    for (const line of traceLines()) log.debug(line);
  }
}

/** Decides who may run what; answers anyone turned away and returns their status, else the run asked for. */
async function gate(
  api: GitHubApi,
  trigger: Exclude<Trigger, { kind: 'skip' }>,
  settings: Settings,
): Promise<RunStatus | RunTrigger> {
  // Only someone with write access (or their automation) can dispatch a workflow: GitHub checked already.
  const permission =
    trigger.origin.kind === 'dispatch' ? 'write' : await api.access.permission(trigger.sender);
  if (!canWrite(permission)) {
    log.info(`@${trigger.sender} has ${permission} permission; only write or admin may run todo-agent.`);
    await answer(
      api,
      trigger,
      `@${trigger.sender} only collaborators with write access can run todo-agent here, so this request was not run.`,
    );
    return 'refused';
  }
  if (trigger.issueState === 'closed') {
    await answer(
      api,
      trigger,
      `todo-agent did not start: this ${trigger.isPullRequest ? 'pull request' : 'issue'} is closed. Reopen it and ask again.`,
    );
    return 'skipped';
  }
  if (trigger.kind === 'usage') return await showUsage(api, trigger, settings, 'no task was given');
  const problem = taskProblem(trigger.request.task);
  if (problem) return await showUsage(api, trigger, settings, problem);
  return trigger;
}

/** Says why the request was not run, with how to ask; the run is skipped. */
async function showUsage(
  api: GitHubApi,
  trigger: TriggerSource,
  settings: Settings,
  problem: string,
): Promise<RunStatus> {
  const prefix = settings.inputs.trigger;
  await answer(
    api,
    trigger,
    `todo-agent did not start: ${problem}.\n\nUsage: \`${prefix} <what to do>\`, for example \`${prefix} add type hints to hello.py\`, or \`${prefix} continue\` to resume an earlier run, or \`${prefix} plan <what to do>\` to see a plan first.`,
  );
  return 'skipped';
}

/** SIGTERM (cancel, timeout-minutes) and SIGINT stop the loop; the job then saves the work and reports. */
function cancelOnSignals(): AbortController {
  const controller = new AbortController();
  const cancel = (signal: string) => {
    log.warning(`Received ${signal}: stopping the agent and saving its work.`);
    controller.abort();
  };
  process.once('SIGTERM', () => cancel('SIGTERM'));
  process.once('SIGINT', () => cancel('SIGINT'));
  return controller;
}

/**
 * Reacts to the comment that asked, or to the issue itself for a label, an assignment or a dispatch; a review
 * takes no reactions through the REST API, so it gets none.
 */
async function react(
  api: GitHubApi,
  trigger: TriggerSource,
  content: Reaction,
  pacing: { beside?: boolean } = {},
): Promise<void> {
  const target = reactionTarget(trigger);
  if (!target) return;
  try {
    if (target.on === 'issue') await api.issues.reactToIssue(target.number, content, pacing);
    else
      await api.issues.react(target.id, content, target.on === 'issue comment' ? 'issue' : 'review', pacing);
  } catch (error) {
    log.warning(`could not add the ${content} reaction: ${errorSentence(error)}`);
  }
}

/** The 👀 sent before the action loaded: what it came back as, or sent again through Octokit if it failed. */
async function confirmEyes(api: GitHubApi, trigger: TriggerSource, eyes: EarlyEyes): Promise<void> {
  const sent = await eyes.answer;
  if (sent.ok) api.access.reactedAs(sent.login);
  else {
    log.info(`The first 👀 was not written (${sent.why}); sending it again.`);
    await react(api, trigger, 'eyes');
  }
}

function report(outcome: JobOutcome): void {
  if (!('result' in outcome)) {
    setOutputs(outcome.status);
    return;
  }
  const { result, delivery } = outcome;
  // Work that was done but could not reach GitHub fails the step (job.ts): the comment and the record keep it.
  setOutputs(outcome.status, {
    pr_url: delivery.pr?.url ?? '',
    branch: outcome.branch ?? '',
    todos: JSON.stringify(result.todos),
    usage: JSON.stringify(result.usage),
    cost_usd: result.costUsd.toFixed(4),
    structured_output: structuredOutputJson(result.structuredOutput),
  });
  const failure = [outcome.failure, structuredOutputFailure(result.structuredOutput)].filter(Boolean);
  if (failure.length > 0) setFailed(failure.join('; '));
  if (outcome.warning) log.warning(outcome.warning);
}

/** The change was kept as a patch because GitHub refused it or it could not be pushed. */
function undelivered(delivery: Delivery): boolean {
  return delivery.patch !== undefined;
}

const EMPTY_OUTPUTS: Record<string, string> = {
  pr_url: '',
  branch: '',
  todos: '[]',
  usage: '{}',
  cost_usd: '0',
  structured_output: '',
};

function setOutputs(status: RunStatus, outputs: Record<string, string> = {}): void {
  setOutput('status', status);
  for (const [name, fallback] of Object.entries(EMPTY_OUTPUTS)) setOutput(name, outputs[name] ?? fallback);
}
