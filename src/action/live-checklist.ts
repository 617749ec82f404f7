// The checklist comment while a run goes: created before the first model call, edited in place, and read
// back every few seconds so that a maintainer's edit is merged into the run rather than overwritten.
import type { AgentObserver, AgentResult } from '../agent/events.js';
import type { InboxEntry } from '../agent/loop.js';
import type { Delivery } from '../delivery/deliver.js';
import type { Settings } from '../settings/settings.js';
import { log } from '../runner/output.js';
import { errorSentence } from '../text/error-sentence.js';
import { redactAndCut } from '../text/redact.js';
import { statusOf } from '../github/octokit.js';
import type { GitHubApi } from '../github/api.js';
import { ChecklistWatch } from '../github/checklist/watch.js';
import { CommentWriter } from '../github/checklist/writer.js';
import { PendingEdits } from '../github/checklist/pending-edits.js';
import { ChecklistProgress } from '../github/checklist/progress.js';
import type { ChecklistPhase, ChecklistState } from '../github/checklist/render.js';
import { treeUrl } from '../github/urls.js';
import { headline, type WorkPlan } from '../github/work-plan.js';

/** How much of the task (redacted first) the agent-state keeps for a later `continue` (GitHub caps a comment). */
const MAX_STORED_TASK = 4_000;

/** The checklist comment of a run, from its first write to its last. */
export interface LiveChecklist {
  /** Where the comment is now (a new comment replaces a deleted one). */
  readonly url: string | undefined;
  /** Mirrors the agent's list, turns, tokens and verify reports into the comment. */
  readonly observer: AgentObserver;
  /** The maintainer's edits of the comment not yet handed to the agent loop (its inbox). */
  readonly inbox: () => InboxEntry[];
  /** Holds the writer's own writes from the model's last answer until the final write (`finish`). */
  hold(): void;
  /**
   * Looks at the comment once now, beside the delivery's last request (the pull request), so that the final
   * write goes on that look rather than look again first: a round trip fewer after the model's last answer,
   * and a look late enough to see an edit the maintainer made while the work was being committed.
   */
  lookBack(): void;
  /**
   * Stops watching, writes the run's outcome and delivery (and the run record's file name, to say where it
   * is), and returns the final body.
   */
  finish(result: AgentResult, delivery: Delivery, recordFile?: string): Promise<string>;
  /** Stops watching and writes the run as failed with the error's sentence. */
  fail(error: unknown): Promise<void>;
}

const PHASES: Record<AgentResult['status'], ChecklistPhase> = {
  completed: 'completed',
  incomplete: 'incomplete',
  failed: 'failed',
  cancelled: 'cancelled',
  planned: 'planned',
};

/**
 * Starts creating the checklist comment (planning…) before the first model call, without waiting for it;
 * later writes edit it in place.
 */
export async function openChecklist(
  {
    settings,
    issueNumber,
    api,
    sandbox,
  }: { settings: Settings; issueNumber: number; api: GitHubApi; sandbox: string },
  plan: WorkPlan,
): Promise<LiveChecklist> {
  let commentId: number | undefined;
  /** A look taken by `lookBack`, and whether the next write may go on it. */
  let look: Promise<unknown> | undefined;
  let lookedBack = false;
  let url: string | undefined;
  const warn = (what: string) => (error: unknown) =>
    log.warning(`could not ${what} the checklist comment: ${errorSentence(error)}`);
  const edits = new PendingEdits(plan.earlier?.todos ?? []);
  // A maintainer's edit is shown at once, and handed to the agent at its next turn.
  const watch = new ChecklistWatch(api, (found) => {
    edits.add(found);
    progress.update({ items: edits.shown() });
  });
  const writer: CommentWriter = new CommentWriter(
    async (body) => {
      // Merge an edit made since our last write before writing, rather than overwrite it (the final write
      // goes on the look taken beside the delivery).
      if (lookedBack) lookedBack = false;
      else if (await watch.check().catch(warn('read'))) body = progress.body();
      if (commentId !== undefined) {
        try {
          watch.wrote(await api.issues.updateComment(commentId, body));
          return;
        } catch (error) {
          // Someone deleted the checklist: start a new one rather than lose the state.
          if (statusOf(error) !== 404) throw error;
        }
      }
      const created = await api.issues.createComment(issueNumber, body);
      commentId = created.id;
      url = created.htmlUrl;
      watch.wrote(created);
    },
    { onError: warn('write') },
  );
  const progress: ChecklistProgress = new ChecklistProgress(writer, {
    task: headline(plan),
    runUrl: settings.runUrl,
    sandbox,
    items: plan.earlier?.todos ?? [],
    trigger: settings.inputs.trigger,
    resume: {
      task: redactAndCut(headline(plan), MAX_STORED_TASK),
      issue: issueNumber,
      ...(plan.branch ? { branch: plan.branch } : {}),
      base: plan.base,
      runId: settings.runId,
    },
  });
  progress.shownItems = (items) => edits.shown(items);
  // The writer creates the comment at once; the run goes on beside it (the first model request does not
  // wait for it), and the watch starts once the comment exists, unless the run is already over.
  progress.update({ phase: 'planning', ...(plan.notice ? { note: plan.notice } : {}) });
  let over = false;
  void writer.settled().then(() => {
    if (!over) watch.start(warn('read'));
  });
  const stop = () => {
    over = true;
    watch.stop();
  };
  return {
    get url() {
      return url;
    },
    observer: progress.observer,
    inbox: () => edits.take(),
    hold() {
      // The final write follows the delivery: an edit still waiting for the writer's interval goes with it.
      writer.pause();
    },
    lookBack() {
      look = watch.check().catch(warn('read'));
    },
    async finish(result, delivery, recordFile) {
      stop();
      if (look) {
        await look;
        lookedBack = true;
      }
      progress.update({
        ...outcomeOf(result, delivery, settings),
        ...(recordFile ? { record: recordFile } : {}),
        items: edits.shown(result.todos),
        resume: { ...progress.state.resume, ...resumeOf(result, delivery, plan) },
      });
      await progress.flush();
      return progress.body();
    },
    async fail(error) {
      stop();
      progress.update({ phase: 'failed', note: errorSentence(error) });
      await progress.flush();
    },
  };
}

/** What the final comment says of the run: its phase and numbers, why it stopped, where the work went. */
function outcomeOf(result: AgentResult, delivery: Delivery, settings: Settings): Partial<ChecklistState> {
  const pushed = delivery.pushedBranch;
  return {
    phase: PHASES[result.status],
    turn: result.turns,
    usage: result.usage,
    costUsd: result.costUsd,
    ...(result.verify ? { verify: result.verify } : {}),
    note:
      [result.status === 'completed' ? undefined : result.reason, delivery.note].filter(Boolean).join(' ') ||
      undefined,
    ...(pushed ? { branch: { name: pushed, url: treeUrl(settings, pushed) } } : {}),
    ...(delivery.pr ? { pr: { number: delivery.pr.number, url: delivery.pr.url } } : {}),
    ...(delivery.patch !== undefined ? { refused: { ...delivery.refusal, patch: delivery.patch } } : {}),
  };
}

/** What a later `continue` or `go` picks up: the branch the work is on, and whether this was a plan. */
function resumeOf(
  result: AgentResult,
  delivery: Delivery,
  plan: WorkPlan,
): Partial<ChecklistState['resume']> {
  const pushed = delivery.pushedBranch;
  return {
    ...(pushed || plan.branch ? { branch: pushed ?? plan.branch } : {}),
    ...(result.status === 'planned' ? { planned: true } : {}),
  };
}
