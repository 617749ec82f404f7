// One triggered run: plan where to work, keep the checklist comment live, run the agent, deliver the work.
import { promptTokens, type AgentObserver, type AgentResult } from './agent/events.js';
import { childEnv } from './agent/child-env.js';
import { loadInstructions, type InstructionFile } from './agent/instructions.js';
import { runAgent } from './agent/loop.js';
import { Model, type ModelOptions } from './agent/model.js';
import type { RunFacts } from './agent/prompt.js';
import type { VerifySettings } from './agent/verify.js';
import { credentialFiles } from './agent/credential-files.js';
import { openWorkspace } from './agent/workspace.js';
import { openSandbox, SandboxError } from './agent/sandbox-setup.js';
import type { Sandbox } from './agent/sandbox-namespaces.js';
import { dropPersistedCredentials, saveConfig } from './git/config-guard.js';
import { GitRepo } from './git/repo.js';
import { statusOf, type GitHubApi, type IssueComment, type Permission } from './github/api.js';
import type { ChecklistPhase } from './github/checklist.js';
import { ChecklistWatch } from './github/checklist-watch.js';
import { CommentWriter } from './github/comment-writer.js';
import { PendingEdits } from './github/pending-edits.js';
import { answer } from './github/answer.js';
import { deliver, type Delivery } from './github/delivery.js';
import { humanComments } from './github/issue-context.js';
import { pullBody } from './github/pull-body.js';
import { pullThreads, threadAuthors, threadHint } from './github/review-threads.js';
import { runContext } from './github/run-context.js';
import { replyInThreads } from './github/thread-replies.js';
import { ChecklistProgress } from './github/progress.js';
import { RunSummary } from './github/summary.js';
import type { Trigger } from './github/trigger.js';
import { headline, planWork, type WorkPlan } from './github/work-plan.js';
import { runnerFiles } from './github/runner-files.js';
import { errorSentence } from './error-sentence.js';
import type { Settings } from './settings.js';
import { log } from './runner-output.js';
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

/** The model settings beyond the client's connection: effort, prices, and where its notices go. */
function modelChoices(settings: Settings): Pick<ModelOptions, 'effort' | 'pricePerMtok' | 'onNotice'> {
  const { effort, price_per_mtok } = settings.inputs;
  return {
    ...(effort ? { effort } : {}),
    ...(price_per_mtok ? { pricePerMtok: price_per_mtok } : {}),
    onNotice: (message) => log.warning(message),
  };
}

export async function runJob(request: JobRequest): Promise<JobOutcome> {
  const { settings, trigger, api, redact } = request;
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
    const sandbox = await startSandbox(settings);
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
  const { progress, checklist } = await openChecklist(request, plan);

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
      redact,
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
          `${firstLine(headline(plan), 72)}\n\nWork by todo-agent for #${trigger.issueNumber}.`,
        ),
        pull: {
          title: firstLine(headline(plan), 100),
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
    const commitUrl = (sha: string) =>
      `${settings.serverUrl}/${settings.owner}/${settings.repo}/commit/${sha}`;
    if (pushed) await replyInThreads({ api, git, startSha, commitUrl, trigger, threads, plan, result });
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

/** The tools' sandbox, unless the workflow turned it off; a sandbox that cannot be built stops the run. */
async function startSandbox(settings: Settings): Promise<Sandbox | undefined> {
  if (settings.inputs.sandbox === 'off') {
    log.warning('sandbox: off: the tools run without a sandbox and can read the runner and its credentials.');
    return undefined;
  }
  const started = performance.now();
  try {
    const sandbox = await openSandbox({
      workspace: await openWorkspace(settings.workspace),
      network: settings.inputs.tool_network === 'none' ? 'none' : 'host',
      hidden: runnerFiles(process.env),
    });
    log.info(`Sandbox ready in ${Math.round(performance.now() - started)} ms.`);
    return sandbox;
  } catch (error) {
    if (!(error instanceof SandboxError)) throw error;
    throw new Error(
      `the sandbox for the tools could not be built (${error.message}); ` +
        'run on a runner with sudo or as root, or set `sandbox: off` to run without one',
      { cause: error },
    );
  }
}

/** What the model is told about this run up front, so it spends no turns finding out. */
function runFacts({ owner, repo, inputs }: Settings, plan: WorkPlan): RunFacts {
  return {
    repository: `${owner}/${repo}`,
    baseBranch: plan.base,
    branch: plan.branch,
    date: new Date().toISOString().slice(0, 10),
    freshCheckout: true,
    ...(inputs.verify_command ? { verifyCommand: inputs.verify_command } : {}),
  };
}

function verifyGate({ inputs }: Settings): { verify?: VerifySettings } {
  return inputs.verify_command
    ? { verify: { command: inputs.verify_command, attempts: inputs.verify_attempts } }
    : {};
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

/**
 * Creates the checklist comment (planning…) before the first model call; later writes edit it in place.
 * `checklist.url` is where it is now (a new comment replaces a deleted one).
 */
async function openChecklist(
  { settings, trigger, api }: JobRequest,
  plan: WorkPlan,
): Promise<{
  progress: ChecklistProgress;
  checklist: { url?: string; watch: ChecklistWatch; edits: PendingEdits };
}> {
  let commentId: number | undefined;
  const warn = (what: string) => (error: unknown) =>
    log.warning(`could not ${what} the checklist comment: ${errorSentence(error)}`);
  const edits = new PendingEdits(plan.earlier?.todos ?? []);
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
    task: headline(plan),
    runUrl: settings.runUrl,
    items: plan.earlier?.todos ?? [],
    trigger: settings.inputs.trigger,
    resume: {
      task: headline(plan).slice(0, MAX_STORED_TASK),
      issue: trigger.issueNumber,
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
function logObserver(): AgentObserver {
  const report = terminalReporter({
    write: (text) => log.info(text.replace(/\n$/, '')),
    color: false,
  });
  let open = false;
  const close = () => {
    if (open) log.endGroup();
    open = false;
  };
  return (event) => {
    if (event.type === 'turn_start') {
      close();
      log.startGroup(`Turn ${event.turn}`);
      open = true;
    }
    // A turn ended by a model error has no turn_end: the end event closes its group.
    if (event.type === 'end') close();
    report(event);
    if (event.type === 'turn_end') {
      log.info(
        `tokens: ${promptTokens(event.usage)} in, ${event.usage.output_tokens} out (stop: ${event.stopReason ?? 'none'})`,
      );
      close();
    }
  };
}

/** The first message's view of an earlier run: its list, its task as data, a plan's approval, the edits. */
function briefingOf(earlier: NonNullable<WorkPlan['earlier']>) {
  return {
    resumedTodos: earlier.todos,
    ...(earlier.task === undefined ? {} : { earlierTask: earlier.task }),
    ...(earlier.approved
      ? {
          resumeNote:
            'The maintainer approved this plan. Work through it: keep the item ids, and start on the first open item.',
        }
      : {}),
    ...(earlier.edits ? { maintainerEdits: earlier.edits } : {}),
  };
}

/** The issue the pull request closes: this one, or for a run on a PR, the one its description already closes. */
function closesOf(plan: WorkPlan, issueNumber: number): { closes?: number } {
  if (plan.kind !== 'pull-request') return { closes: issueNumber };
  return plan.closes === undefined ? {} : { closes: plan.closes };
}

function firstLine(text: string, max: number): string {
  const line =
    text
      .split('\n')
      .find((l) => l.trim())
      ?.trim() ?? 'todo-agent changes';
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}
