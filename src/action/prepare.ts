// Everything a run needs before the checklist exists: the workspace's git, the sandbox, the thread as the
// maintainer saw it, who wrote it, where the work goes and the instructions the base branch holds.
import { childEnv } from '../sandbox/child-env.js';
import { loadInstructions, type InstructionFile } from '../agent/instructions.js';
import { credentialFiles } from '../sandbox/credential-files.js';
import type { Redaction } from '../sandbox/capped-output.js';
import type { Sandbox } from '../sandbox/namespaces.js';
import { dropPersistedCredentials, saveConfig, type SavedConfig } from '../git/config-guard.js';
import { GitRepo } from '../git/repo.js';
import type { GitHubApi, IssueComment, Permission } from '../github/api.js';
import { answer } from '../github/answer.js';
import { humanComments } from '../github/thread/issue-context.js';
import { threadAuthors, type ReviewThread } from '../github/thread/review-threads.js';
import type { RunTrigger } from '../github/trigger.js';
import { planWork, type WorkPlan } from '../github/work-plan.js';
import { errorSentence } from '../text/error-sentence.js';
import type { Settings } from '../settings/settings.js';
import { log } from '../runner/output.js';
import { readThread, type ThreadReads } from './thread-reads.js';
import { startSandbox } from './tool-sandbox.js';

export interface JobRequest {
  settings: Settings;
  trigger: RunTrigger;
  api: GitHubApi;
  /** The action's redactor (src/text/redact.ts): the agent redacts tool output with it across every cut. */
  redactor: Redaction;
  secrets: string[];
  signal: AbortSignal;
  /** The thread's reads, if they were started beside the gate (`readThread`); else prepare starts them. */
  reads?: ThreadReads;
}

/** A run ready to start: where it works, what the model reads, and what to restore afterwards. */
export interface Prepared {
  git: GitRepo;
  plan: WorkPlan;
  /** The thread as it stood when the maintainer asked. */
  thread: IssueComment[];
  threads: ReviewThread[];
  permissions: Map<string, Permission>;
  instructions: InstructionFile[];
  sandbox: Sandbox | undefined;
  startSha: string;
  config: SavedConfig;
}

/** Prepares the run, or says why it cannot start; a throw is answered on the issue before it goes on. */
export async function prepare(request: JobRequest): Promise<Prepared | { decline: string }> {
  return await beforeStart(request, async () => {
    const { settings, trigger, api } = request;
    const git = workspaceRepo(request);
    const reads = request.reads ?? readThread(api, trigger);
    // The workspace and the sandbox are made ready while GitHub answers the reads.
    const local = prepareWorkspace(git, settings, trigger);
    const [ready, defaultBranch, allComments, threads] = await Promise.all([
      local,
      reads.defaultBranch,
      reads.comments,
      reads.threads,
    ]).catch(async (error: unknown) => {
      (await local.catch(() => undefined))?.sandbox?.close();
      throw error;
    });
    const { sandbox, checkoutSha } = ready;
    const thread = threadAsAsked(trigger, allComments);
    // Who wrote what the model reads is asked beside the plan's git work.
    const [outcome, permissions] = await Promise.all([
      planWork({
        trigger,
        thread: allComments,
        api,
        git,
        runId: settings.runId,
        branchPrefix: settings.inputs.branch_prefix,
        baseBranch: settings.inputs.base_branch || defaultBranch,
        defaultBranch,
      }),
      authorPermissions(api, trigger.issueAuthor, thread, threadAuthors(threads)),
    ]).catch((error: unknown) => {
      sandbox?.close();
      throw error;
    });
    const instructions = 'plan' in outcome ? await baseInstructions(git, outcome.plan.base, checkoutSha) : [];
    const startSha = await git.head();
    const config = await saveConfig(settings.workspace);
    if ('decline' in outcome) {
      sandbox?.close();
      return outcome;
    }
    const { plan } = outcome;
    return { git, plan, thread, threads, permissions, instructions, sandbox, startSha, config };
  });
}

/** Checkout's persisted credentials removed, the tools' sandbox opened, and the commit checkout gave. */
async function prepareWorkspace(
  git: GitRepo,
  settings: Settings,
  trigger: RunTrigger,
): Promise<{ sandbox: Sandbox | undefined; checkoutSha: string }> {
  const removed = await dropPersistedCredentials(git);
  if (removed > 0)
    log.info(`Removed ${removed} persisted credential(s) from the workspace's git configuration.`);
  const sandbox = await startSandbox(settings, trigger.mode === 'plan' ? 'read-only' : 'read-write');
  try {
    // What actions/checkout gave us, before any branch switch: the fallback source of the instructions.
    return { sandbox, checkoutSha: await git.head() };
  } catch (error) {
    sandbox?.close();
    throw error;
  }
}

/** Our git gets a secret-free environment; the token reaches only its fetch, ls-remote and push. */
function workspaceRepo({ settings, secrets }: JobRequest): GitRepo {
  return new GitRepo(settings.workspace, {
    env: childEnv(process.env, secrets),
    auth: { serverUrl: settings.serverUrl, token: settings.inputs.github_token },
    exclude: credentialFiles(process.env),
  });
}

/** The model reads the thread as it stood when the maintainer asked: nothing posted after the trigger. */
function threadAsAsked(trigger: RunTrigger, comments: IssueComment[]): IssueComment[] {
  const asked = trigger.source === 'issue_comment' ? trigger.commentId : undefined;
  return comments.filter((c) => c.id !== asked && c.createdAt <= trigger.commentCreatedAt);
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
