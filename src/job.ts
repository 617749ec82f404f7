// One triggered run: plan where to work, keep the checklist comment live, run the agent, deliver the work.
import * as core from '@actions/core';
import { promptTokens, type AgentObserver, type AgentResult } from './agent/events.js';
import { childEnv } from './agent/child-env.js';
import { runAgent } from './agent/loop.js';
import { Model } from './agent/model.js';
import { openWorkspace } from './agent/workspace.js';
import { GitRepo } from './git/repo.js';
import { statusOf, type GitHubApi } from './github/api.js';
import type { ChecklistPhase } from './github/checklist.js';
import { ChecklistWatch } from './github/checklist-watch.js';
import { CommentWriter } from './github/comment-writer.js';
import { PendingEdits } from './github/pending-edits.js';
import { deliver, type Delivery } from './github/delivery.js';
import { issueContext } from './github/issue-context.js';
import { pullBody } from './github/pull-body.js';
import { ChecklistProgress } from './github/progress.js';
import { RunSummary } from './github/summary.js';
import type { Trigger } from './github/trigger.js';
import { planWork, type WorkPlan } from './github/work-plan.js';
import { errorSentence } from './error-sentence.js';
import type { Settings } from './settings.js';
import { terminalReporter } from './terminal/reporter.js';

export interface JobRequest {
  settings: Settings;
  trigger: Extract<Trigger, { kind: 'run' }>;
  api: GitHubApi;
  redact: (text: string) => string;
  secrets: string[];
  signal: AbortSignal;
}

export type JobOutcome =
  | { status: AgentResult['status']; result: AgentResult; delivery: Delivery; branch?: string }
  | { status: 'skipped'; declined: string };

/** How much of the task the comment's agent-state keeps for a later `continue` (GitHub caps a comment). */
const MAX_STORED_TASK = 4_000;

const PHASES: Record<AgentResult['status'], ChecklistPhase> = {
  completed: 'completed',
  incomplete: 'incomplete',
  failed: 'failed',
  cancelled: 'cancelled',
  planned: 'planned',
};

export async function runJob(request: JobRequest): Promise<JobOutcome> {
  const { settings, trigger, api, redact } = request;
  // Git runs with the same secret-free environment as the tools: repository hooks never see the key or token.
  const git = new GitRepo(settings.workspace, { env: childEnv(process.env, request.secrets) });
  const setup = await beforeStart(request, async () => {
    const [baseBranch, thread] = await Promise.all([
      settings.inputs.base_branch || api.defaultBranch(),
      api.comments(trigger.issueNumber),
    ]);
    const outcome = await planWork({
      trigger,
      thread,
      api,
      git,
      runId: settings.runId,
      branchPrefix: settings.inputs.branch_prefix,
      baseBranch,
    });
    return { outcome, thread, startSha: await git.head() };
  });
  if ('decline' in setup.outcome) {
    await api.createComment(trigger.issueNumber, `todo-agent did not start: ${setup.outcome.decline}.`);
    return { status: 'skipped', declined: setup.outcome.decline };
  }
  const { thread, startSha } = setup;
  const { plan } = setup.outcome;
  const { progress, checklist } = await openChecklist(request, plan);

  try {
    const summary = new RunSummary();
    const agentResult = await runAgent({
      task: plan.task,
      context: issueContext({
        number: trigger.issueNumber,
        title: trigger.issueTitle,
        body: trigger.issueBody,
        isPullRequest: trigger.isPullRequest,
        comments: thread.filter((c) => c.id !== trigger.commentId && c.createdAt <= trigger.commentCreatedAt),
      }),
      ...(plan.resumedTodos ? { resumedTodos: plan.resumedTodos } : {}),
      ...(plan.resumeNote ? { resumeNote: plan.resumeNote } : {}),
      ...(plan.listEdits ? { maintainerEdits: plan.listEdits } : {}),
      planOnly: plan.kind === 'plan',
      model: new Model({
        apiKey: settings.inputs.anthropic_api_key,
        baseURL: settings.inputs.anthropic_base_url,
        model: settings.inputs.model,
      }),
      workspace: await openWorkspace(settings.workspace),
      maxTurns: settings.inputs.max_turns,
      reminderRounds: settings.inputs.reminder_rounds,
      bashTimeoutSeconds: settings.inputs.bash_timeout,
      ...(settings.inputs.max_cost_usd ? { maxCostUsd: settings.inputs.max_cost_usd } : {}),
      observers: [progress.observer, summary.observer, logObserver(redact)],
      inbox: () => checklist.edits.take(),
      signal: request.signal,
      redact,
      secrets: request.secrets,
    });

    // A plan delivers nothing: whatever its commands left in the workspace is not committed.
    const delivered = await deliverSafely(async () =>
      plan.kind === 'plan'
        ? {}
        : await deliver({
            git,
            api,
            result: agentResult,
            startSha,
            branch: plan.branch,
            base: plan.base,
            continuesBranch: plan.continuesBranch,
            openPull: plan.kind !== 'pull-request',
            commitMessage: redact(
              `${firstLine(plan.task, 72)}\n\nWork by todo-agent for #${trigger.issueNumber}.`,
            ),
            pull: {
              title: firstLine(plan.task, 100),
              draft: settings.inputs.draft,
              body: (files) =>
                redact(
                  pullBody({
                    ...(plan.kind === 'pull-request'
                      ? plan.closes === undefined
                        ? {}
                        : { closes: plan.closes }
                      : { closes: trigger.issueNumber }),
                    result: agentResult,
                    ...(checklist.url ? { checklistUrl: checklist.url } : {}),
                    ...(files ? { files } : {}),
                  }),
                ),
            },
          }),
    );
    const delivery = delivered.delivery;
    // A delivery that failed outright turns the run into a failure, but keeps everything the agent did.
    const result: AgentResult = delivered.error
      ? { ...agentResult, status: 'failed', reason: redact(delivered.error) }
      : agentResult;
    const pushed = delivery.pushedBranch;
    const link = (name: string) => `${settings.serverUrl}/${settings.owner}/${settings.repo}/tree/${name}`;
    checklist.watch.stop();
    progress.update({
      phase: PHASES[result.status],
      items: checklist.edits.shown(result.todos),
      turn: result.turns,
      usage: result.usage,
      costUsd: result.costUsd,
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
    await summary.write(progress.body(), redact);
    return { status: result.status, result, delivery, ...(pushed ? { branch: pushed } : {}) };
  } catch (error) {
    checklist.watch.stop();
    progress.update({ phase: 'failed', note: redact(errorSentence(error)) });
    await progress.flush();
    throw error;
  }
}

/** Setup before the checklist exists: if it fails, say so on the issue before giving up. */
async function beforeStart<T>({ api, trigger, redact }: JobRequest, setup: () => Promise<T>): Promise<T> {
  try {
    return await setup();
  } catch (error) {
    const why = redact(errorSentence(error));
    await api
      .createComment(trigger.issueNumber, `❌ todo-agent could not start: ${why}`)
      .catch(() => core.warning('could not post the failure reply either'));
    throw error;
  }
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
 * Creates the checklist comment (planning…) before the first model call; later writes edit it in place.
 * `checklist.url` is where it is now (a new comment replaces a deleted one).
 */
async function openChecklist(
  { settings, trigger, api, redact }: JobRequest,
  plan: WorkPlan,
): Promise<{
  progress: ChecklistProgress;
  checklist: { url?: string; watch: ChecklistWatch; edits: PendingEdits };
}> {
  let commentId: number | undefined;
  const warn = (what: string) => (error: unknown) =>
    core.warning(`could not ${what} the checklist comment: ${redact(errorSentence(error))}`);
  const edits = new PendingEdits(plan.resumedTodos ?? []);
  // A maintainer's edit is shown at once, and handed to the agent at its next turn.
  const watch = new ChecklistWatch(api, (found) => {
    edits.add(found);
    progress.update({ items: edits.shown() });
  });
  const checklist: { url?: string; watch: ChecklistWatch; edits: PendingEdits } = { watch, edits };
  const writer = new CommentWriter(
    async (body) => {
      // Merge an edit made since our last write before writing, rather than overwrite it.
      if (await watch.check().catch(warn('read'))) body = progress.body();
      if (commentId !== undefined) {
        try {
          watch.wrote(commentId, await api.updateComment(commentId, body));
          return;
        } catch (error) {
          // Someone deleted the checklist: start a new one rather than lose the state.
          if (statusOf(error) !== 404) throw error;
        }
      }
      const created = await api.createComment(trigger.issueNumber, body);
      commentId = created.id;
      checklist.url = created.htmlUrl;
      watch.wrote(created.id, created.body);
    },
    { onError: warn('write') },
  );
  const progress = new ChecklistProgress(writer, {
    task: plan.task,
    runUrl: settings.runUrl,
    items: plan.resumedTodos ?? [],
    trigger: settings.inputs.trigger,
    resume: {
      task: plan.task.slice(0, MAX_STORED_TASK),
      ...(plan.branch ? { branch: plan.branch } : {}),
      base: plan.base,
      runId: settings.runId,
    },
  });
  progress.shownItems = (items) => edits.shown(items);
  progress.update({ phase: 'planning', ...(plan.notice ? { note: plan.notice } : {}) });
  await progress.flush();
  watch.start(warn('read'));
  return { progress, checklist };
}

/** The log: one group per turn holding the terminal panel and tool lines. */
function logObserver(redact: (text: string) => string): AgentObserver {
  const report = terminalReporter({
    write: (text) => core.info(redact(text.replace(/\n$/, ''))),
    color: false,
  });
  let open = false;
  const close = () => {
    if (open) core.endGroup();
    open = false;
  };
  return (event) => {
    if (event.type === 'turn_start') {
      close();
      core.startGroup(`Turn ${event.turn}`);
      open = true;
    }
    // A turn ended by a model error has no turn_end: the end event closes its group.
    if (event.type === 'end') close();
    report(event);
    if (event.type === 'turn_end') {
      core.info(
        `tokens: ${promptTokens(event.usage)} in, ${event.usage.output_tokens} out (stop: ${event.stopReason ?? 'none'})`,
      );
      close();
    }
  };
}

function firstLine(text: string, max: number): string {
  const line =
    text
      .split('\n')
      .find((l) => l.trim())
      ?.trim() ?? 'todo-agent changes';
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}
