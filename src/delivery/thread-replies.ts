// After a run on a pull request has pushed (to a branch of this repository, or onto a fork's pull request's own
// branch): one reply in each review thread that an item completed in this run names by its label ("Rename the
// helper [T2]"), saying what was done and in which commit. Threads no completed item names get nothing, and
// neither does anything when the run pushed nothing.
import type { AgentResult } from '../agent/events.js';
import type { TodoItem } from '../agent/todo/todos.js';
import type { GitRepo } from '../git/repo.js';
import { errorSentence } from '../text/error-sentence.js';
import { log } from '../runner/output.js';
import type { GitHubApi } from '../github/api/github-api.js';
import { commitUrl, type RepoLocation } from '../github/urls.js';
import { renderTaskList } from '../github/checklist/render.js';
import { codeSpan, safeUrl } from '../text/markdown.js';
import type { ReviewThread } from '../github/thread/review-threads.js';
import type { TriggerSource } from '../github/request/trigger.js';
import type { WorkPlan } from '../github/request/work-plan.js';

/** `[T2]` in an item's text: the label of the thread it addresses (several may follow one another). */
const LABEL = /\s*\[(T\d+)\]/gi;

export interface ThreadReplies {
  api: GitHubApi;
  git: GitRepo;
  /** HEAD before the agent started: the reply links a commit only when HEAD has moved on since. */
  startSha: string;
  /** Where the pushed commit is on the web, for its link: this repository, or the fork it was pushed onto. */
  pushedTo: RepoLocation;
  trigger: Pick<TriggerSource, 'issueNumber'>;
  threads: readonly ReviewThread[];
  /** The list the run started from (an item completed there was answered by the run that completed it). */
  plan: Pick<WorkPlan, 'earlier'>;
  result: Pick<AgentResult, 'todos'>;
}

type Commit = { sha: string; url: string };

/** The threads named by items completed in this run, each with those items, in thread order. */
export function addressedThreads(
  threads: readonly ReviewThread[],
  before: readonly TodoItem[],
  after: readonly TodoItem[],
): Array<{ thread: ReviewThread; items: TodoItem[] }> {
  const doneBefore = new Set(before.filter((item) => item.status === 'completed').map((item) => item.id));
  const done = after.filter((item) => item.status === 'completed' && !doneBefore.has(item.id));
  return threads
    .map((thread) => ({ thread, items: done.filter((item) => labelsOf(item.text).has(thread.label)) }))
    .filter(({ items }) => items.length > 0);
}

/** The reply: the commit (short sha, linked) and the items, escaped as the checklist escapes them. */
export function replyText(items: readonly TodoItem[], commit?: Commit): string {
  const link = commit && safeUrl(commit.url);
  const where = link
    ? `in [${codeSpan(commit.sha.slice(0, 7))}](${link})`
    : 'without a code change (nothing new to commit)';
  const list = renderTaskList(items.map((item) => ({ ...item, text: item.text.replace(LABEL, '').trim() })));
  return `🤖 todo-agent addressed this thread ${where}:\n\n${list}`;
}

/** Posts the replies once the work is pushed; a reply that fails is a warning in the log, never a failed run. */
export async function replyInThreads(request: ThreadReplies): Promise<number> {
  const { api, git, threads, plan, result } = request;
  const addressed = addressedThreads(threads, plan.earlier?.todos ?? [], result.todos);
  if (addressed.length === 0) return 0;
  const head = await git.head();
  const url = commitUrl(request.pushedTo, head);
  const commit = head === request.startSha ? undefined : { sha: head, url };
  let posted = 0;
  for (const { thread, items } of addressed) {
    try {
      await api.pulls.replyInThread(request.trigger.issueNumber, thread.id, replyText(items, commit));
      posted++;
    } catch (error) {
      log.warning(`could not reply in review thread ${thread.label}: ${errorSentence(error)}`);
    }
  }
  return posted;
}

function labelsOf(text: string): Set<string> {
  return new Set([...text.matchAll(LABEL)].map((match) => match[1]!.toUpperCase()));
}
