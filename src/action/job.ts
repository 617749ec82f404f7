// One triggered run: plan where to work, keep the checklist comment live, run the agent, deliver the work.
import type { AgentResult } from '../agent/events.js';
import { childEnv } from '../sandbox/child-env.js';
import { loadInstructions, type InstructionFile } from '../agent/instructions.js';
import { runAgent } from '../agent/loop.js';
import { Model } from '../model/client.js';
import { credentialFiles } from '../sandbox/credential-files.js';
import { openWorkspace } from '../agent/workspace.js';
import type { Redaction } from '../sandbox/capped-output.js';
import { briefingOf, modelChoices, runFacts, verifyGate } from './agent-options.js';
import { dropPersistedCredentials, saveConfig } from '../git/config-guard.js';
import { GitRepo } from '../git/repo.js';
import type { GitHubApi, IssueComment, Permission } from '../github/api.js';
import type { ChecklistPhase } from '../github/checklist/render.js';
import { answer } from '../github/answer.js';
import { deliver, type Delivery } from '../delivery/deliver.js';
import { humanComments } from '../github/thread/issue-context.js';
import { openChecklist } from './live-checklist.js';
import { pullBody } from '../delivery/pull-body.js';
import { pullThreads, threadAuthors, threadHint } from '../github/thread/review-threads.js';
import { runContext } from '../github/thread/run-context.js';
import { replyInThreads } from '../delivery/thread-replies.js';
import { RunSummary } from '../runner/summary.js';
import type { Trigger } from '../github/trigger.js';
import { headline, planWork, type WorkPlan } from '../github/work-plan.js';
import { errorSentence } from '../text/error-sentence.js';
import { redactAndCut } from '../text/redact.js';
import type { Settings } from '../settings/settings.js';
import { log } from '../runner/output.js';
import { logObserver } from '../runner/log.js';
import { startSandbox } from './tool-sandbox.js';

export interface JobRequest {
  settings: Settings;
  trigger: Extract<Trigger, { kind: 'run' }>;
  api: GitHubApi;
  /** The action's redactor (src/redact.ts): the agent redacts tool output with it across every cut. */
  redactor: Redaction;
  secrets: string[];
  signal: AbortSignal;
}

export type JobOutcome =
  | { status: AgentResult['status']; result: AgentResult; delivery: Delivery; branch?: string }
  | { status: 'skipped'; declined: string };

const PHASES: Record<AgentResult['status'], ChecklistPhase> = {
  completed: 'completed',
  incomplete: 'incomplete',
  failed: 'failed',
  cancelled: 'cancelled',
  planned: 'planned',
};

export async function runJob(request: JobRequest): Promise<JobOutcome> {
  const { settings, trigger, api, redactor } = request;
  const redact = (text: string) => redactor.redact(text);
  // Our git gets a secret-free environment; the token reaches only its fetch, ls-remote and push.
  const git = new GitRepo(settings.workspace, {
    env: childEnv(process.env, request.secrets),
    auth: { serverUrl: settings.serverUrl, token: settings.inputs.github_token },
    exclude: credentialFiles(process.env),
  });
  const setup = await beforeStart(request, async () => {
    const removed = await dropPersistedCredentials(git);
    if (removed > 0)
      log.info(`Removed ${removed} persisted credential(s) from the workspace's git configuration.`);
    const sandbox = await startSandbox(settings, trigger.mode === 'plan' ? 'read-only' : 'read-write');
    // What actions/checkout gave us, before any branch switch: the fallback source of the instructions.
    const checkoutSha = await git.head();
    const [defaultBranch, allComments, threads] = await Promise.all([
      api.defaultBranch(),
      api.comments(trigger.issueNumber),
      pullThreads(api, trigger),
    ]);
    const outcome = await planWork({
      trigger,
      thread: allComments,
      api,
      git,
      runId: settings.runId,
      branchPrefix: settings.inputs.branch_prefix,
      baseBranch: settings.inputs.base_branch || defaultBranch,
      defaultBranch,
    });
    // The model reads the thread as it stood when the maintainer asked: nothing posted after the trigger.
    const asked = trigger.source === 'issue_comment' ? trigger.commentId : undefined;
    const thread = allComments.filter((c) => c.id !== asked && c.createdAt <= trigger.commentCreatedAt);
    const permissions = await authorPermissions(api, trigger.issueAuthor, thread, threadAuthors(threads));
    const instructions = 'plan' in outcome ? await baseInstructions(git, outcome.plan.base, checkoutSha) : [];
    return {
      outcome,
      thread,
      threads,
      permissions,
      instructions,
      sandbox,
      startSha: await git.head(),
      config: await saveConfig(settings.workspace),
    };
  });
  if ('decline' in setup.outcome) {
    setup.sandbox?.close();
    await answer(api, trigger, `todo-agent did not start: ${setup.outcome.decline}.`);
    return { status: 'skipped', declined: setup.outcome.decline };
  }
  const { thread, threads, permissions, startSha, sandbox, config, instructions } = setup;
  const { plan } = setup.outcome;
  const checklist = await openChecklist({ settings, issueNumber: trigger.issueNumber, api }, plan);
  const { progress } = checklist;

  try {
    const summary = new RunSummary();
    const agentResult = await runAgent({
      ...(sandbox ? { sandbox } : {}),
      task: plan.task + threadHint(threads),
      context: runContext(trigger, thread, threads, permissions),
      ...(plan.earlier ? briefingOf(plan.earlier) : {}),
      planOnly: plan.kind === 'plan',
      instructions,
      facts: runFacts(settings, plan),
      hiddenFiles: credentialFiles(process.env),
      model: new Model({
        provider: settings.inputs.provider,
        apiKey: settings.inputs.anthropic_api_key,
        baseURL: settings.inputs.anthropic_base_url,
        model: settings.inputs.model,
        ...modelChoices(settings),
      }),
      workspace: await openWorkspace(settings.workspace),
      maxTurns: settings.inputs.max_turns,
      reminderRounds: settings.inputs.reminder_rounds,
      bashTimeoutSeconds: settings.inputs.bash_timeout,
      ...(settings.inputs.max_cost_usd ? { maxCostUsd: settings.inputs.max_cost_usd } : {}),
      ...(settings.inputs.max_context_tokens ? { maxContextTokens: settings.inputs.max_context_tokens } : {}),
      ...verifyGate(settings),
      observers: [progress.observer, summary.observer, logObserver()],
      inbox: () => checklist.edits.take(),
      signal: request.signal,
      redaction: redactor,
      secrets: request.secrets,
    }).finally(() => sandbox?.close());

    // Every tool process is gone (each call's namespace died with it); what the model configured goes too.
    // A plan delivers nothing: whatever its commands left in the workspace is not committed.
    const delivered = await deliverSafely(async () => {
      await config.restore();
      if (plan.kind === 'plan') return {};
      return deliver({
        git,
        api,
        result: agentResult,
        startSha,
        branch: plan.branch,
        base: plan.base,
        continuesBranch: plan.continuesBranch,
        openPull: plan.kind !== 'pull-request',
        // Git is not GitHub's API: the commit message is redacted on its way to git here.
        commitMessage: redact(
          `${firstLine(headline(plan), 72, redact)}\n\nWork by todo-agent for #${trigger.issueNumber}.`,
        ),
        pull: {
          title: firstLine(headline(plan), 100, redact),
          draft: settings.inputs.draft,
          body: (files) =>
            pullBody({
              ...closesOf(plan, trigger.issueNumber),
              result: agentResult,
              ...(checklist.url ? { checklistUrl: checklist.url } : {}),
              ...(files ? { files } : {}),
            }),
        },
      });
    });
    const delivery = delivered.delivery;
    // A delivery that failed outright turns the run into a failure, but keeps everything the agent did.
    const result: AgentResult = delivered.error
      ? { ...agentResult, status: 'failed', reason: delivered.error }
      : agentResult;
    const pushed = delivery.pushedBranch;
    if (pushed) await replyInThreads({ api, git, startSha, settings, trigger, threads, plan, result });
    const link = (name: string) => `${settings.serverUrl}/${settings.owner}/${settings.repo}/tree/${name}`;
    checklist.watch.stop();
    progress.update({
      phase: PHASES[result.status],
      items: checklist.edits.shown(result.todos),
      turn: result.turns,
      usage: result.usage,
      costUsd: result.costUsd,
      ...(result.verify ? { verify: result.verify } : {}),
      note:
        [result.status === 'completed' ? undefined : result.reason, delivery.note]
          .filter(Boolean)
          .join(' ') || undefined,
      ...(pushed ? { branch: { name: pushed, url: link(pushed) } } : {}),
      ...(delivery.pr ? { pr: { number: delivery.pr.number, url: delivery.pr.url } } : {}),
      resume: {
        ...progress.state.resume,
        ...(pushed || plan.branch ? { branch: pushed ?? plan.branch } : {}),
        ...(result.status === 'planned' ? { planned: true } : {}),
      },
    });
    await progress.flush();
    await summary.write(progress.body());
    return { status: result.status, result, delivery, ...(pushed ? { branch: pushed } : {}) };
  } catch (error) {
    checklist.watch.stop();
    progress.update({ phase: 'failed', note: errorSentence(error) });
    await progress.flush();
    throw error;
  }
}

/**
 * CLAUDE.md and its kind as the base branch has them: origin's tip of `base` when the checkout has it,
 * else the commit the workflow checked out. Never the working tree, which the model edits.
 */
async function baseInstructions(git: GitRepo, base: string, checkoutSha: string): Promise<InstructionFile[]> {
  const sha = (await git.remoteTip(base)) ?? checkoutSha;
  return await loadInstructions((path) => git.fileAt(sha, path));
}

/** Setup before the checklist exists: if it fails, say so on the issue before giving up. */
async function beforeStart<T>({ api, trigger }: JobRequest, setup: () => Promise<T>): Promise<T> {
  try {
    return await setup();
  } catch (error) {
    await answer(api, trigger, `❌ todo-agent could not start: ${errorSentence(error)}`).catch(() =>
      log.warning('could not post the failure reply either'),
    );
    throw error;
  }
}

/** The permission of the issue's author and of each commenter the model reads, asked once per person. */
async function authorPermissions(
  api: GitHubApi,
  issueAuthor: string,
  comments: readonly IssueComment[],
  others: readonly string[],
): Promise<Map<string, Permission>> {
  const logins = [
    ...new Set([issueAuthor, ...humanComments(comments).map((comment) => comment.user), ...others]),
  ];
  return new Map(
    await Promise.all(logins.map(async (login) => [login, await api.permission(login)] as const)),
  );
}

/** Commit, push and pull request, where any throw becomes a sentence rather than a lost result. */
async function deliverSafely(step: () => Promise<Delivery>): Promise<{ delivery: Delivery; error?: string }> {
  try {
    return { delivery: await step() };
  } catch (error) {
    return { delivery: {}, error: `the work could not be delivered: ${errorSentence(error)}` };
  }
}

/** The issue the pull request closes: this one, or for a run on a PR, the one its description already closes. */
function closesOf(plan: WorkPlan, issueNumber: number): { closes?: number } {
  if (plan.kind !== 'pull-request') return { closes: issueNumber };
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
