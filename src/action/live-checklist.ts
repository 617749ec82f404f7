// The checklist comment while a run goes: created before the first model call, edited in place, and read
// back every few seconds so that a maintainer's edit is merged into the run rather than overwritten.
import type { Settings } from '../settings/settings.js';
import { log } from '../runner/output.js';
import { errorSentence } from '../text/error-sentence.js';
import { redactAndCut } from '../text/redact.js';
import { statusOf, type GitHubApi } from '../github/api.js';
import { ChecklistWatch } from '../github/checklist/watch.js';
import { CommentWriter } from '../github/checklist/writer.js';
import { PendingEdits } from '../github/checklist/pending-edits.js';
import { ChecklistProgress } from '../github/checklist/progress.js';
import { headline, type WorkPlan } from '../github/work-plan.js';

/** How much of the task (redacted first) the agent-state keeps for a later `continue` (GitHub caps a comment). */
const MAX_STORED_TASK = 4_000;

export interface LiveChecklist {
  progress: ChecklistProgress;
  /** Where the comment is now (a new comment replaces a deleted one). */
  url?: string;
  watch: ChecklistWatch;
  edits: PendingEdits;
}

/**
 * Creates the checklist comment (planning…) before the first model call; later writes edit it in place.
 * `checklist.url` is where it is now (a new comment replaces a deleted one).
 */
export async function openChecklist(
  { settings, issueNumber, api }: { settings: Settings; issueNumber: number; api: GitHubApi },
  plan: WorkPlan,
): Promise<LiveChecklist> {
  let commentId: number | undefined;
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
      // Merge an edit made since our last write before writing, rather than overwrite it.
      if (await watch.check().catch(warn('read'))) body = progress.body();
      if (commentId !== undefined) {
        try {
          watch.wrote(await api.updateComment(commentId, body));
          return;
        } catch (error) {
          // Someone deleted the checklist: start a new one rather than lose the state.
          if (statusOf(error) !== 404) throw error;
        }
      }
      const created = await api.createComment(issueNumber, body);
      commentId = created.id;
      checklist.url = created.htmlUrl;
      watch.wrote(created);
    },
    { onError: warn('write') },
  );
  const progress: ChecklistProgress = new ChecklistProgress(writer, {
    task: headline(plan),
    runUrl: settings.runUrl,
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
  const checklist: LiveChecklist = { progress, watch, edits };
  progress.shownItems = (items) => edits.shown(items);
  progress.update({ phase: 'planning', ...(plan.notice ? { note: plan.notice } : {}) });
  await progress.flush();
  watch.start(warn('read'));
  return checklist;
}
