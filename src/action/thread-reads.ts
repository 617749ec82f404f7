// The reads every run starts from, sent as soon as the event is known: beside the 👀 and the permission
// check rather than after them, so that they cost no round trip of their own before the first model request.
import type { GitHubApi, IssueComment } from '../github/api.js';
import { pullThreads, type ReviewThread } from '../github/thread/review-threads.js';
import type { RunTrigger } from '../github/trigger.js';

export interface ThreadReads {
  defaultBranch: Promise<string>;
  comments: Promise<IssueComment[]>;
  threads: Promise<ReviewThread[]>;
  /** The description as HTML, where its pictures are (a failure leaves the pictures out, not the run). */
  issueHtml: Promise<string>;
}

/**
 * Starts the reads; each failure waits for whoever awaits it (a run the gate turns away never does, and
 * its failed read must not end the process as an unhandled rejection).
 */
export function readThread(api: GitHubApi, trigger: RunTrigger): ThreadReads {
  const reads: ThreadReads = {
    defaultBranch: api.defaultBranch(),
    comments: api.comments(trigger.issueNumber),
    threads: pullThreads(api, trigger),
    issueHtml: api.issueHtml(trigger.issueNumber),
  };
  for (const read of Object.values(reads)) (read as Promise<unknown>).catch(() => undefined);
  return reads;
}
