// Everything a run needs before the checklist exists: our own git directory, the sandbox, the thread as the
// maintainer saw it, who wrote it, where the work goes and the instructions the base branch holds. The
// checkout's own `.git` is used only here, before the first tool call; from then on our git works in a
// directory of its own (own-git-dir.ts), filled from the checkout at the end of this step.
import { childEnv } from '../../sandbox/commands/child-env.js';
import type { AgentResult } from '../../agent/events.js';
import type { Delivery } from '../../delivery/deliver.js';
import { loadInstructions, type InstructionFile } from '../../agent/briefing/instructions.js';
import { credentialFiles } from '../../sandbox/credential-files.js';
import type { Redaction } from '../../sandbox/commands/capped-output.js';
import type { Sandbox } from '../../sandbox/namespaces.js';
import { dropPersistedCredentials, saveConfig, type SavedConfig } from '../../git/config-guard.js';
import { WorkspaceGuard } from '../../git/workspace-guard.js';
import { saveCleaned, savePostState } from '../../runner/post-state.js';
import { reserveGitDir, type OwnGitDir } from '../../git/own-git-dir.js';
import { GitRepo, type GitRepoOptions } from '../../git/repo.js';
import type { GitHubApi } from '../../github/api/github-api.js';
import type { IssueComment } from '../../github/api/issues.js';
import type { Permission } from '../../github/api/access.js';
import { answer } from '../../github/answer.js';
import type { ReviewThread } from '../../github/thread/review-threads.js';
import type { RunTrigger } from '../../github/request/trigger.js';
import { planWork, type WorkPlan } from '../../github/request/work-plan.js';
import { workspaceAccess } from '../../github/request/run-kinds.js';
import { allowlistOn } from '../../settings/parse.js';
import { errorSentence } from '../../text/error-sentence.js';
import type { Settings } from '../../settings/settings.js';
import { log, saveState } from '../../runner/output.js';
import { readThread, type ThreadReads } from './thread-reads.js';
import { loadMcpConfig, startMcp, startSandbox } from './tool-sandbox.js';
import type { ToolRuntime } from '../../runtime/tool-runtime.js';
import type { RunRecord } from '../../record/run-record.js';
import { threadView, type ThreadView } from './thread-view.js';
import { StartingServers } from '../../mcp/starting.js';
import { mayStartLocalServers } from '../../mcp/start-cost.js';
import { loadOutputSchema } from '../../settings/output-schema.js';
import type { OutputSchema } from '../../model/output-schema.js';
import type { GateOptions } from '../../network/gate.js';
import { Snapshot } from '../../git/snapshot.js';
import path from 'node:path';
import { traced } from '../../runner/trace.js';

export interface JobRequest {
  settings: Settings;
  trigger: RunTrigger;
  api: GitHubApi;
  /** The action's redactor (src/text/redact.ts): the agent redacts tool output with it across every cut. */
  redactor: Redaction;
  secrets: string[];
  signal: AbortSignal;
  /** The run record (action/record.ts): the agent's events, the delivery and the result go in it. */
  record?: RunRecord | undefined;
  /** Told once the work is delivered, beside the final checklist write (main.ts reacts with it). */
  onDelivered?: (status: AgentResult['status'], delivery: Delivery) => Promise<void>;
  /** The thread's reads, if they were started beside the gate (`readThread`); else prepare starts them. */
  reads?: ThreadReads;
}

/** A run ready to start: where it works, what the model reads, and what to restore afterwards. */
export interface Prepared {
  /** Our git: the action's own git directory, the workspace as its work tree only. */
  git: GitRepo;
  /** That directory, hidden from the tools; removed when the run ends. */
  ownDir: OwnGitDir;
  plan: WorkPlan;
  /** The thread as it stood when the maintainer asked. */
  thread: IssueComment[];
  threads: ReviewThread[];
  permissions: Map<string, Permission>;
  instructions: InstructionFile[];
  sandbox: Sandbox | undefined;
  /** The tools' runtime (the sandbox, its gate, the MCP servers): `close()` once no tool may run. */
  runtime: ToolRuntime;
  startSha: string;
  /** Puts the workspace's git directories right after the last tool call (the post step, if killed). */
  guard: WorkspaceGuard;
  /** The thread's pictures and the issues and pull requests it points to. */
  view: ThreadView;
  /** The maintainer's MCP servers, starting in the sandbox (or reached), when `mcp_servers` names any. */
  mcp?: StartingServers;
  /** The tools' environment's secrets: the job's, and the values the MCP configuration filled in. */
  secrets: string[];
  /** The final answer's schema (`output_schema`), checked, from the base branch when it names a file. */
  outputSchema?: OutputSchema;
  /** The workspace as the job handed it to us (src/git/snapshot.ts): what the trusted side reads of it. */
  snapshot: Snapshot;
}

/** What the tools need and the first model request does not: made ready beside that request. */
type ToolsPart = Pick<Prepared, 'git' | 'runtime' | 'sandbox' | 'startSha' | 'guard'>;

/**
 * A run whose first model request may go: what the model reads, and the tools' part on its way (the sandbox,
 * our git directory filled, the post step told, the toolchains asked). The MCP servers start once that part
 * is ready (a local server is code the tools' sandbox runs): their tools join as each server is up.
 */
export type Started = Omit<Prepared, keyof ToolsPart> & { tools: Promise<ToolsPart> };

/**
 * Prepares the run up to its first model request, or says why it cannot start; a throw is answered on the
 * issue before it goes on. A failure of the tools' part (`tools`) leaves nothing of it open.
 */
export async function prepare(request: JobRequest): Promise<Started | { decline: string }> {
  let ownDir: OwnGitDir | undefined;
  let snapshot: Snapshot | undefined;
  // The toolchains are asked once the run's secrets (the MCP configuration's too) and the snapshot are known.
  let askWith: (question: Awaited<GateOptions['toolchains']>) => void = () => undefined;
  let notAsked: (error: unknown) => void = () => undefined;
  const toolchains = new Promise<Awaited<GateOptions['toolchains']>>((resolve, reject) => {
    askWith = resolve;
    notAsked = reject;
  });
  toolchains.catch(() => undefined);
  let tools: Promise<ToolsPart> | undefined;
  const prepared = beforeStart(request, async () => {
    const { settings, trigger, api } = request;
    const options = gitOptions(request);
    const git = new GitRepo(settings.workspace, options);
    const reads = request.reads ?? readThread(api, trigger);
    // GitHub's package hosts join the tools' allowlist: asked beside the reads, awaited only by the gate's list.
    const { tool_network, sandbox } = settings.inputs;
    const packageHosts = allowlistOn(tool_network, sandbox !== 'off') ? api.packageHosts() : undefined;
    packageHosts?.catch(() => undefined); // the gate logs it
    // The workspace and our git directory are made ready while GitHub answers the reads, and the sandbox
    // starts beside the plan's git work (it needs only our directory's path, to hide it).
    const local = (async () => {
      const removed = await traced("checkout's credentials dropped", dropPersistedCredentials(git));
      if (removed > 0)
        log.info(`Removed ${removed} persisted credential(s) from the workspace's git configuration.`);
      // Made before the sandbox, so that the tools never see it.
      ownDir = await traced('own git directory reserved', reserveGitDir(process.env));
      // The workspace as the job handed it to us, before any branch is checked out or any tool runs.
      snapshot = await traced(
        'trusted snapshot taken',
        Snapshot.take({
          workspace: settings.workspace,
          kind: 'git',
          copy: await mayStartLocalServers(settings.mcp, git),
          env: childEnv(process.env, request.secrets),
          ...(process.env.RUNNER_TEMP ? { parent: process.env.RUNNER_TEMP } : {}),
        }),
      );
      // What actions/checkout gave us, before any branch switch: the fallback source of the instructions.
      return { dir: ownDir, checkoutSha: await traced('checkout HEAD read', git.head()) };
    })();
    const access = workspaceAccess(trigger.request);
    const runtimeReady = local.then(({ dir }) =>
      traced(
        'sandbox and gate opened',
        startSandbox(settings, access, [dir.path], request.secrets, toolchains, packageHosts),
      ),
    );
    runtimeReady.catch(() => undefined); // awaited below, or closed on the way out
    try {
      const [{ dir, checkoutSha }, defaultBranch, allComments, threads, thread, permissions] =
        await Promise.all([
          local,
          reads.defaultBranch,
          reads.comments,
          reads.threads,
          reads.thread,
          traced("thread's authors' permissions read", reads.permissions),
        ]);
      // The start's copy for local MCP servers (src/git/snapshot.ts) is done before a branch is checked out;
      // the sandbox is built beside it.
      await traced("trusted snapshot's copy done", snapshot!.copyDone());
      const outcome = await traced(
        'work planned (branch, base)',
        planWork({
          trigger,
          thread: allComments,
          api,
          git,
          runId: settings.runId,
          branchPrefix: settings.inputs.branch_prefix,
          baseBranch: settings.inputs.base_branch || defaultBranch,
          defaultBranch,
          sandboxed: settings.inputs.sandbox === 'on',
          forkDelivery: settings.inputs.fork_delivery,
        }),
      );
      if ('decline' in outcome) {
        await closeRuntime(runtimeReady);
        await dir.remove();
        return outcome;
      }
      // The pictures and the issues the thread points to are read beside the instructions and our git's setup.
      const view = threadView({
        api,
        serverUrl: settings.serverUrl,
        trigger,
        issueHtml: reads.issueHtml,
        reviews: reads.reviews,
        allComments,
        thread,
        threads,
        permissions,
        signal: request.signal,
      });
      view.catch(() => undefined);
      // CLAUDE.md and its kind, and an MCP configuration file, as the base branch has them: origin's tip of
      // the base when the checkout has it, else the commit the workflow checked out. Never the working tree,
      // which the model edits.
      const base = (await traced("base's tip read", git.remoteTip(outcome.plan.base))) ?? checkoutSha;
      const trusted = snapshot!;
      trusted.setBase({ gitDir: path.join(settings.workspace, '.git'), commit: base });
      const readBase = (file: string) => trusted.committed(file);
      const instructions = await traced('instructions read', loadInstructions(readBase));
      const mcpConfig = settings.mcp && (await loadMcpConfig(settings.mcp, readBase));
      const outputSchema = settings.outputSchema && (await loadOutputSchema(settings.outputSchema, readBase));
      const viewed = await traced("waited for the thread's pictures and references", view);
      const secrets = [...request.secrets, ...(mcpConfig?.secrets ?? [])];
      // Beside the first model request: nothing of it is needed before the first tool call.
      tools = traced(
        "tools' part ready (own git directory, sandbox, post step told)",
        (async (): Promise<ToolsPart> => {
          const config = await traced(
            "workspace's git config saved",
            saveConfig(settings.workspace, dir.path),
          );
          const started = performance.now();
          const own = await traced('own git directory filled', dir.adopt(git, options));
          log.info(`Own git directory ready in ${Math.round(performance.now() - started)} ms.`);
          // From now on the base commit's files come from our own directory, which no tool can reach.
          trusted.setBase({ gitDir: dir.path, commit: base });
          const startSha = await own.head();
          const runtime = await traced('waited for the sandbox', runtimeReady);
          const { sandbox } = runtime;
          // Last, once nothing here can fail: told to the post step only when the tools are about to run (an
          // MCP server is code the tools' sandbox runs, so it starts after).
          const projectFiles = await traced('project files listed', trusted.projectFiles());
          const guard = guardOf(settings.workspace, dir, own, config, sandbox, request.record);
          askWith({ env: childEnv(process.env, secrets), projectFiles });
          return { git: own, startSha, runtime, sandbox, guard };
        })().catch(async (error: unknown) => {
          notAsked(error);
          await closeRuntime(runtimeReady);
          throw error;
        }),
      );
      tools.catch(() => undefined); // the job awaits it
      // The servers start in the tools' runtime once it is ready and the post step told (a local server is
      // code the tools' sandbox runs); the first model request waits for them only where the model cannot
      // take their tools later (agent/tools/late.ts).
      const mcp =
        mcpConfig &&
        new StartingServers(
          mcpConfig,
          tools.then(({ runtime }) => startMcp(mcpConfig, settings, runtime, secrets, trusted)),
        );
      if (mcp) void traced('MCP servers started', mcp.starting.settled);
      return {
        ...(mcp ? { mcp } : {}),
        ...(outputSchema ? { outputSchema } : {}),
        secrets,
        snapshot: trusted,
        ownDir: dir,
        plan: outcome.plan,
        thread,
        threads,
        permissions,
        instructions,
        view: viewed,
        tools,
      };
    } catch (error) {
      notAsked(error);
      const armed = await tools?.catch(() => undefined);
      await closeRuntime(runtimeReady);
      // Once the guard is armed (the post step told, a server may have run), it alone ends: it repairs the
      // workspace's git directories, then removes our own directory, or leaves it to the post step.
      if (armed) {
        await armed.guard.finish();
        ownDir = undefined;
      }
      throw error;
    }
  });
  return await prepared
    .then(async (outcome) => {
      if ('decline' in outcome) await snapshot?.remove();
      return outcome;
    })
    .catch(async (error: unknown) => {
      notAsked(error);
      await ownDir?.remove();
      await snapshot?.remove();
      throw error;
    });
}

/**
 * The run's guard of the workspace's git directories, armed: what the post step needs to know if the action
 * is killed is told to the runner before the first tool call; what putting right changed goes to the log and
 * the run record, and to the post step that it has nothing left to do.
 */
function guardOf(
  workspace: string,
  dir: OwnGitDir,
  git: GitRepo,
  saved: SavedConfig,
  sandbox: Sandbox | undefined,
  record: RunRecord | undefined,
): WorkspaceGuard {
  // Through sudo, what the tools made and this user cannot remove goes with sudo's rm (no tool is left then).
  const escalate = sandbox?.config.isolation === 'sudo' ? sandbox.config.escalate : undefined;
  const armed = () =>
    savePostState(saveState, {
      workspace,
      ownGitDir: dir.path,
      ...(escalate ? { escalate: [...escalate] } : {}),
      ...(sandbox
        ? {
            sandbox: {
              dir: sandbox.privateDir,
              escalate: [...sandbox.config.escalate],
              rm: sandbox.config.programs.rm,
            },
          }
        : {}),
    });
  const repaired = (sentences: readonly string[]) => {
    saveCleaned(saveState);
    for (const sentence of sentences) {
      log.warning(sentence);
      record?.note(sentence);
    }
  };
  const failed = (why: string) =>
    log.warning(`The workspace's git directories could not be put right: ${why}`);
  return WorkspaceGuard.arm({
    workspace,
    ownDir: dir,
    saved,
    git,
    ...(escalate ? { escalate } : {}),
    tell: { armed, repaired, failed },
  });
}

/** Closes the runtime once it is up, if it came up. */
async function closeRuntime(ready: Promise<ToolRuntime>): Promise<void> {
  await (await ready.catch(() => undefined))?.close();
}

/** Our git gets a secret-free environment; the token reaches only its fetch, ls-remote and push. */
function gitOptions({ settings, secrets }: JobRequest): GitRepoOptions {
  return {
    env: childEnv(process.env, secrets),
    auth: { serverUrl: settings.serverUrl, token: settings.inputs.github_token },
    exclude: credentialFiles(process.env),
  };
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
