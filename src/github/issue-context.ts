// The issue as the model reads it: title, body and the thread before the trigger, cleaned and marked as data.
import type { IssueComment } from './api.js';

const MAX_CONTEXT_CHARS = 40_000;
const MAX_COMMENT_CHARS = 4_000;

/** Removes what a reader cannot see but a model would: HTML comments, zero-width and bidi control characters. */
export function stripHidden(text: string): string {
  return text
    .replace(/<!--[\s\S]*?(?:-->|$)/g, '')
    .replace(/[\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u2069\uFEFF\u00AD]/g, '')
    .replace(/[\u{E0000}-\u{E007F}]/gu, '');
}

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}\n[… ${text.length - max} characters cut]`;
}

export interface IssueThread {
  number: number;
  title: string;
  body: string;
  isPullRequest: boolean;
  /** Comments posted before the trigger comment, oldest first. */
  comments: readonly IssueComment[];
}

/** One block of text for the model. Bot comments (our own checklists among them) are left out. */
export function issueContext(thread: IssueThread): string {
  const kind = thread.isPullRequest ? 'Pull request' : 'Issue';
  const parts = [`${kind} #${thread.number}: ${stripHidden(thread.title).trim()}`];
  const body = stripHidden(thread.body).trim();
  parts.push(body ? clip(body, MAX_COMMENT_CHARS * 2) : '(no description)');
  const human = thread.comments.filter(
    (comment) => comment.userType !== 'Bot' && !comment.user.endsWith('[bot]'),
  );
  for (const comment of human) {
    const text = stripHidden(comment.body).trim();
    if (text)
      parts.push(
        `--- comment by @${comment.user} (${comment.createdAt}) ---\n${clip(text, MAX_COMMENT_CHARS)}`,
      );
  }
  const joined = parts.join('\n\n');
  // Keep the start (title and description) and the most recent discussion when the thread is long.
  if (joined.length <= MAX_CONTEXT_CHARS) return joined;
  const head = joined.slice(0, MAX_CONTEXT_CHARS / 2);
  const tail = joined.slice(-MAX_CONTEXT_CHARS / 2);
  return `${head}\n\n[… ${joined.length - MAX_CONTEXT_CHARS} characters of the thread cut …]\n\n${tail}`;
}
