// One triggered run, from the first checklist comment to the pull request.
import * as core from '@actions/core';
import type { AgentObserver, AgentResult } from './agent/events.js';
import { runAgent } from './agent/loop.js';
import { Model } from './agent/model.js';
import { openWorkspace } from './agent/workspace.js';
import { branchName, GitRepo } from './git/repo.js';
import type { GitHubApi } from './github/api.js';
import { renderTaskList, type ChecklistPhase } from './github/checklist.js';
import { CommentWriter } from './github/comment-writer.js';
import { deliver, type Delivery } from './github/delivery.js';
import { issueContext } from './github/issue-context.js';
import { ChecklistProgress } from './github/progress.js';
import { RunSummary, totalInput } from './github/summary.js';
import type { Trigger } from './github/trigger.js';
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

export interface JobOutcome {
  status: AgentResult['status'];
  result?: AgentResult;
  delivery: Delivery;
  branch?: string;
}

const PHASES: Record<AgentResult['status'], ChecklistPhase> = {
  completed: 'completed',
  incomplete: 'incomplete',
  failed: 'failed',
  cancelled: 'cancelled',
};

export async function runJob({
  settings,
  trigger,
  api,
  redact,
  secrets,
  signal,
}: JobRequest): Promise<JobOutcome> {
  const { inputs } = settings;
  const branch = branchName(inputs.branch_prefix, trigger.issueNumber, settings.runId);
  // The first write creates the comment; every later one edits it in place.
  let commentId: number | undefined;
  const writer = new CommentWriter(
    async (body) => {
      if (commentId === undefined) commentId = (await api.createComment(trigger.issueNumber, body)).id;
      else await api.updateComment(commentId, body);
    },
    {
      onError: (error) =>
        core.warning(`could not write the checklist comment: ${redact(errorSentence(error))}`),
    },
  );
  const progress = new ChecklistProgress(writer, {
    task: trigger.task,
    runUrl: settings.runUrl,
    resume: { branch, runId: settings.runId },
  });
  progress.update({ phase: 'planning' });
  await progress.flush();

  try {
    const git = new GitRepo(settings.workspace);
    const [base, startSha, thread] = await Promise.all([
      inputs.base_branch || api.defaultBranch(),
      git.head(),
      api.comments(trigger.issueNumber),
    ]);
    await git.createBranch(branch);
    progress.update({ resume: { ...progress.state.resume, base } });

    const summary = new RunSummary();
    const result = await runAgent({
      task: trigger.task,
      context: issueContext({
        number: trigger.issueNumber,
        title: trigger.issueTitle,
        body: trigger.issueBody,
        isPullRequest: trigger.isPullRequest,
        comments: thread.filter((c) => c.id !== trigger.commentId && c.createdAt <= trigger.commentCreatedAt),
      }),
      model: new Model({
        apiKey: inputs.anthropic_api_key,
        baseURL: inputs.anthropic_base_url,
        model: inputs.model,
      }),
      workspace: await openWorkspace(settings.workspace),
      maxTurns: inputs.max_turns,
      reminderRounds: inputs.reminder_rounds,
      bashTimeoutSeconds: inputs.bash_timeout,
      observers: [progress.observer, summary.observer, logObserver(redact)],
      signal,
      redact,
      secrets,
    });

    const delivery = await deliver({
      git,
      api,
      result,
      startSha,
      branch,
      base,
      commitMessage: `${firstLine(trigger.task, 72)}\n\nWork by todo-agent for #${trigger.issueNumber}.`,
      pull: {
        title: firstLine(trigger.task, 100),
        body: redact(pullBody(trigger.issueNumber, result)),
      },
    });
    const pushed = delivery.pushedBranch;
    progress.update({
      phase: PHASES[result.status],
      items: result.todos,
      turn: result.turns,
      usage: result.usage,
      note:
        [result.status === 'completed' ? undefined : result.reason, delivery.note]
          .filter(Boolean)
          .join(' ') || undefined,
      ...(pushed
        ? {
            branch: {
              name: pushed,
              url: `${settings.serverUrl}/${settings.owner}/${settings.repo}/tree/${pushed}`,
            },
          }
        : {}),
      ...(delivery.pr ? { pr: { number: delivery.pr.number, url: delivery.pr.url } } : {}),
      resume: { ...progress.state.resume, branch: pushed ?? branch },
    });
    await progress.flush();
    await summary.write(progress.body(), redact);
    return { status: result.status, result, delivery, ...(pushed ? { branch: pushed } : {}) };
  } catch (error) {
    progress.update({ phase: 'failed', note: redact(errorSentence(error)) });
    await progress.flush();
    throw error;
  }
}

/** The log: one group per turn holding the terminal panel and tool lines. */
function logObserver(redact: (text: string) => string): AgentObserver {
  const report = terminalReporter({
    write: (text) => core.info(redact(text.replace(/\n$/, ''))),
    color: false,
  });
  return (event) => {
    if (event.type === 'turn_start') core.startGroup(`Turn ${event.turn}`);
    report(event);
    if (event.type === 'turn_end') {
      core.info(
        `tokens: ${totalInput(event.usage)} in, ${event.usage.output_tokens} out (stop: ${event.stopReason ?? 'none'})`,
      );
      core.endGroup();
    }
  };
}

function pullBody(issueNumber: number, result: AgentResult): string {
  const usage = result.usage;
  return [
    `Closes #${issueNumber}`,
    '### Todo list',
    renderTaskList(result.todos),
    '### Summary',
    result.lastText || '_The model left no summary._',
    `<sub>${result.turns} turns · ${result.toolCalls} tool calls · ${totalInput(usage)} input tokens (${usage.cache_read_input_tokens} cached), ${usage.output_tokens} output tokens · opened by todo-agent</sub>`,
  ].join('\n\n');
}

function firstLine(text: string, max: number): string {
  const line =
    text
      .split('\n')
      .find((l) => l.trim())
      ?.trim() ?? 'todo-agent changes';
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** One readable sentence for a comment: never a stack trace. */
export function errorSentence(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const first = message.split('\n')[0]?.trim() || 'unknown error';
  return first.length > 300 ? `${first.slice(0, 299)}…` : first;
}
