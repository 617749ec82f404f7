// What the settings and the prepared run make of the agent's options: the model's choices, the run's facts,
// the verify gate, and the first message's view of an earlier run.
import type { AgentObserver } from '../agent/events.js';
import type { AgentOptions, DeliveryList, InboxEntry } from '../agent/options.js';
import { openWorkspace } from '../agent/workspace.js';
import { Model, type ModelOptions } from '../model/client.js';
import { credentialFiles } from '../sandbox/credential-files.js';
import type { Sandbox, SandboxNetwork } from '../sandbox/namespaces.js';
import { threadHint } from '../github/thread/review-threads.js';
import { runContext } from '../github/thread/run-context.js';
import { networkFact, type Briefing, type RunFacts } from '../agent/briefing/prompt.js';
import type { VerifySettings } from '../agent/verify.js';
import type { ForkPlan, WorkPlan } from '../github/request/work-plan.js';
import {
  delivers,
  deliversAsReview,
  triesPushOntoFork,
  workingBranch,
  worksOnFork,
} from '../github/request/run-kinds.js';
import { addSecret, githubIdToken, log } from '../runner/output.js';
import type { Settings } from '../settings/settings.js';
import type { JobRequest, Prepared, Started } from './prepare/prepare.js';
import { toolsNetwork } from '../settings/parse.js';
import { RepositoryReading } from '../github/reading/reader.js';

/** The agent's whole brief for this run: task, context, model, limits, and who watches it. */
export async function agentOptions(
  { settings, trigger, api, signal, redactor }: JobRequest,
  { plan, thread, threads, permissions, instructions, view, mcp, secrets, outputSchema }: Started,
  /** The run with its tools' part, which the first tool call waits for (not the first model request). */
  ready: Promise<Prepared>,
  watch: {
    observers: AgentObserver[];
    inbox: () => InboxEntry[];
    /** The delivery's preview (session.ts), for the model's last look; absent for a plan. */
    review?: () => Promise<DeliveryList | undefined>;
    /** The files changed so far (session.ts), re-stated after a compaction; absent for a plan. */
    changedFiles?: () => Promise<string | undefined>;
  },
): Promise<AgentOptions> {
  const { inputs } = settings;
  // Known from the token's kind (the 👀 it came back as, a classic token's scopes): told to the model up front.
  const lockedWorkflows = (await api.access.mayChangeWorkflows()) === false;
  return {
    sandboxReady: sandboxOf(ready),
    task: plan.task + threadHint(threads),
    context: runContext(trigger, thread, threads, permissions),
    ...(plan.earlier ? briefingOf(plan.earlier) : {}),
    // A run that delivers nothing (run-kinds.ts) only plans.
    planOnly: !delivers(plan),
    instructions,
    pictures: view.pictures,
    references: view.references,
    // The github tool runs here, in the action's process, with the action's client: no tool holds the token.
    github: new RepositoryReading(api, settings.serverUrl),
    ...(mcp ? { outside: mcp } : {}),
    facts: {
      ...runFacts(settings, plan, toolsNetwork(inputs.tool_network, inputs.sandbox !== 'off')),
      ...(lockedWorkflows ? { workflowFiles: 'locked' as const } : {}),
    },
    hiddenFiles: credentialFiles(process.env),
    ...(outputSchema ? { outputSchema } : {}),
    model: new Model({
      provider: inputs.provider,
      ...modelAuth(settings),
      baseURL: inputs.anthropic_base_url,
      model: inputs.model,
      ...modelChoices(settings),
    }),
    workspace: await openWorkspace(settings.workspace),
    maxTurns: inputs.max_turns,
    reminderRounds: inputs.reminder_rounds,
    tasks: { maxParallel: inputs.max_parallel_tasks, maxTurns: inputs.task_max_turns },
    bashTimeoutSeconds: inputs.bash_timeout,
    ...(inputs.max_cost_usd ? { maxCostUsd: inputs.max_cost_usd } : {}),
    ...(inputs.max_context_tokens ? { maxContextTokens: inputs.max_context_tokens } : {}),
    ...verifyGate(settings),
    observers: watch.observers,
    inbox: watch.inbox,
    // The agent never learns of git: it is handed a last look at what delivery will commit, as text.
    ...(watch.review ? { review: watch.review } : {}),
    ...(watch.changedFiles ? { changedFiles: watch.changedFiles } : {}),
    signal,
    redaction: redactor,
    secrets,
  };
}

/** The sandbox once the tools' part is ready; a failure is the first tool call's (and the job's) to report. */
function sandboxOf(ready: Promise<Prepared>): Promise<Sandbox | undefined> {
  const sandbox = ready.then((prepared) => prepared.sandbox);
  sandbox.catch(() => undefined);
  return sandbox;
}

/** The key, or keyless auth with the job's OIDC token (each one asked of GitHub anew, masked as it comes). */
export function modelAuth({ inputs, federation }: Settings): Pick<ModelOptions, 'apiKey' | 'federation'> {
  if (!federation) return { apiKey: inputs.anthropic_api_key };
  return { federation: { ...federation, identityToken: githubIdToken, onSecret: addSecret } };
}

/** The model settings beyond the client's connection: effort, prices, and where its notices go. */
export function modelChoices(
  settings: Settings,
): Pick<ModelOptions, 'effort' | 'pricePerMtok' | 'onNotice' | 'compaction'> {
  const { effort, price_per_mtok, compaction } = settings.inputs;
  return {
    ...(effort ? { effort } : {}),
    compaction,
    ...(price_per_mtok ? { pricePerMtok: price_per_mtok } : {}),
    onNotice: (message) => log.warning(message),
  };
}

/**
 * What the model is told about this run up front, so it spends no turns finding out. The network is the
 * sandbox's (without one, `sandbox: off`, the tools reach every host whatever tool_network says).
 */
export function runFacts(
  { owner, repo, inputs }: Settings,
  plan: WorkPlan,
  network?: SandboxNetwork,
): RunFacts {
  const branch = workingBranch(plan);
  return {
    repository: `${owner}/${repo}`,
    baseBranch: plan.base,
    ...(branch === undefined ? {} : { branch }),
    date: new Date().toISOString().slice(0, 10),
    freshCheckout: true,
    ...(worksOnFork(plan) ? { contributor: contributorOf(plan) } : {}),
    ...(inputs.verify_command ? { verifyCommand: inputs.verify_command } : {}),
    ...networkFact(network),
  };
}

/** Whose branch a fork's run works on, and how its work goes back (run-kinds.ts), for the model's note. */
function contributorOf(plan: ForkPlan): NonNullable<RunFacts['contributor']> {
  const { author, repo } = plan.fork;
  return {
    login: author,
    from: repo,
    delivery: deliversAsReview(plan) ? 'review' : 'pull-request',
    editable: triesPushOntoFork(plan),
  };
}

export function verifyGate({ inputs }: Settings): { verify?: VerifySettings } {
  return inputs.verify_command
    ? { verify: { command: inputs.verify_command, attempts: inputs.verify_attempts } }
    : {};
}

/** The first message's view of an earlier run: its list, its task as data, a plan's approval, the edits. */
export function briefingOf(
  earlier: NonNullable<WorkPlan['earlier']>,
): Pick<Briefing, 'resumedTodos' | 'earlierTask' | 'resumeNote' | 'maintainerEdits'> {
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
