// The issue as the model reads it: title, body and the thread before the trigger, cleaned and marked as data.
import type { IssueComment } from './api.js';
import { STATE_MARKER } from './checklist.js';

const MAX_CONTEXT_CHARS = 40_000;
const MAX_COMMENT_CHARS = 4_000;

/**
 * Characters that render as nothing (or only reorder what is around them): zero-width and joiner characters,
 * bidi marks, embeddings, overrides and isolates, invisible operators, fillers, variation selectors and tag
 * characters (both can carry a hidden message letter by letter), and annotation marks.
 */
const INVISIBLE =
  // eslint-disable-next-line no-misleading-character-class -- combining marks listed one by one, on purpose
  /[\u00AD\u034F\u061C\u115F\u1160\u17B4\u17B5\u180B-\u180F\u200B-\u200F\u202A-\u202E\u2060-\u206F\u3164\uFE00-\uFE0F\uFEFF\uFFA0\uFFF9-\uFFFB]|[\u{E0000}-\u{E007F}\u{E0100}-\u{E01EF}\u{1D173}-\u{1D17A}]/gu;

/** The Markdown "comment" idiom, a link definition nobody links to: `[//]: # (hidden)`, `[x]: <> (hidden)`. */
const MARKDOWN_COMMENT = /^ {0,3}\[[^\]\n]*\]:[ \t]*(?:#|<>)(?:[ \t].*)?$/gm;

/** Removes what a reader cannot see but a model would: HTML and Markdown comments, invisible characters. */
export function stripHidden(text: string): string {
  return text
    .replace(/<!--[\s\S]*?(?:-->|$)/g, '')
    .replace(MARKDOWN_COMMENT, '')
    .replace(INVISIBLE, '');
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

/**
 * One block of text for the model. Bot comments and checklists (anything carrying agent-state, which is how
 * this action's own comments look when a personal token writes them) are left out.
 */
export function issueContext(thread: IssueThread): string {
  const kind = thread.isPullRequest ? 'Pull request' : 'Issue';
  const parts = [`${kind} #${thread.number}: ${stripHidden(thread.title).trim()}`];
  const body = stripHidden(thread.body).trim();
  parts.push(body ? clip(body, MAX_COMMENT_CHARS * 2) : '(no description)');
  const human = thread.comments.filter(
    (comment) =>
      comment.userType !== 'Bot' && !comment.user.endsWith('[bot]') && !comment.body.includes(STATE_MARKER),
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
