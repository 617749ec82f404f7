// What an event asks of the action: run a task, show usage, or nothing. Pure: reads the payload only.
import { z } from 'zod';
import { stripHidden } from './hidden-text.js';

export const MAX_TASK_CHARS = 20_000;

/** Who asked, where, and what the issue (or pull request) says. */
export interface TriggerSource {
  issueNumber: number;
  isPullRequest: boolean;
  commentId: number;
  commentUrl: string;
  /** Login of the commenter. */
  sender: string;
  owner: string;
  repo: string;
  issueTitle: string;
  issueBody: string;
  /** Who opened the issue, and GitHub's author_association for them. */
  issueAuthor: string;
  issueAuthorAssociation: string;
  issueState: string;
  locked: boolean;
  commentCreatedAt: string;
}

/**
 * What a run comment asks: a task, only a plan of one (`plan <task>`), or to run the saved plan (`go`).
 * `continue` is a task with `isContinue`.
 */
export type RunMode = 'task' | 'plan' | 'go' | 'cancel';

export type Trigger =
  | ({ kind: 'run'; task: string; isContinue: boolean; mode: RunMode } & TriggerSource)
  | ({ kind: 'usage' } & TriggerSource)
  | { kind: 'skip'; reason: string };

// Only the fields read below; everything else in the payload is ignored.
const actionSchema = z.object({ action: z.string() });

const commentEventSchema = z.object({
  comment: z.object({
    id: z.number().int(),
    html_url: z.string(),
    body: z.string().nullish(),
    created_at: z.string(),
  }),
  issue: z.object({
    number: z.number().int().positive(),
    title: z.string(),
    body: z.string().nullish(),
    user: z.object({ login: z.string() }).nullish(),
    author_association: z.string().optional(),
    state: z.string(),
    locked: z.boolean().optional(),
    pull_request: z.object({}).nullish(),
  }),
  repository: z.object({ name: z.string(), owner: z.object({ login: z.string() }) }),
  sender: z.object({ login: z.string(), type: z.string() }),
});

type CommentEvent = z.infer<typeof commentEventSchema>;

/** Reads an `issue_comment` event: a new comment starting with `triggerPrefix` asks for a run. */
export function parseTrigger(eventName: string, payload: unknown, triggerPrefix: string): Trigger {
  if (eventName !== 'issue_comment') return skip(`event '${eventName}' is not issue_comment`);
  const action = actionSchema.safeParse(payload);
  if (!action.success) return skip(`malformed issue_comment payload: ${describeIssues(action.error)}`);
  if (action.data.action !== 'created') return skip(`comment ${action.data.action}, ignored`);

  const parsed = commentEventSchema.safeParse(payload);
  if (!parsed.success) return skip(`malformed issue_comment payload: ${describeIssues(parsed.error)}`);
  const event = parsed.data;

  if (isBot(event.sender)) return skip(`comment by bot ${event.sender.login}, ignored`);
  const asked = taskAfterPrefix(event.comment.body ?? '', triggerPrefix);
  if (asked === undefined) return skip(`comment does not start with ${triggerPrefix}`);
  // The task too is read as the maintainer saw it: text pasted from elsewhere may carry hidden parts.
  const task = stripHidden(asked).trim();

  const source = sourceOf(event);
  if (task === '') return { kind: 'usage', ...source };
  if (PLAN.test(task))
    return { kind: 'run', task: afterKeyword(task, PLAN), isContinue: false, mode: 'plan', ...source };
  return {
    kind: 'run',
    task,
    isContinue: CONTINUE.test(task),
    mode: GO.test(task) ? 'go' : CANCEL.test(task) ? 'cancel' : 'task',
    ...source,
  };
}

/** `continue` as the first word, alone or followed by more instructions ("continue, and add a test"). */
export const CONTINUE = /^continue(?=$|[\s:,.;!-])/i;
/** `plan <task>`: only plan the task. */
const PLAN = /^plan(?=$|[\s:,.;!-])/i;
/** `cancel` alone (or with punctuation): stop the run going on this thread. */
const CANCEL = /^cancel[\s.!]*$/i;
/** `go`, alone or with more instructions: run the plan the thread holds. */
export const GO = /^go(?=$|[\s:,.;!-])/i;

/** The words after a leading keyword (`continue, and add a test` → `and add a test`). */
export function afterKeyword(task: string, keyword: RegExp): string {
  return task
    .replace(keyword, '')
    .replace(/^[\s:,.;!-]+/, '')
    .trim();
}

/** Why a task cannot be run (empty or too long), in words for the issue thread; undefined when fine. */
export function taskProblem(task: string): string | undefined {
  const length = task.trim().length;
  if (length === 0) return 'no task was given';
  if (length > MAX_TASK_CHARS) {
    return `the task is ${length} characters long, more than the ${MAX_TASK_CHARS} allowed`;
  }
  return undefined;
}

/**
 * The text after the prefix, trimmed, when the body starts (after whitespace) with the prefix followed by
 * whitespace or the end; undefined otherwise, so `/agentfoo` and `please /agent x` are not triggers.
 */
function taskAfterPrefix(body: string, prefix: string): string | undefined {
  const text = body.trimStart();
  if (prefix === '' || !text.startsWith(prefix)) return undefined;
  const rest = text.slice(prefix.length);
  if (rest !== '' && !/^\s/.test(rest)) return undefined;
  return rest.trim();
}

function isBot(sender: CommentEvent['sender']): boolean {
  return sender.type === 'Bot' || sender.login.endsWith('[bot]');
}

function sourceOf(event: CommentEvent): TriggerSource {
  return {
    issueNumber: event.issue.number,
    isPullRequest: event.issue.pull_request != null,
    commentId: event.comment.id,
    commentUrl: event.comment.html_url,
    sender: event.sender.login,
    owner: event.repository.owner.login,
    repo: event.repository.name,
    issueTitle: event.issue.title,
    issueBody: event.issue.body ?? '',
    issueAuthor: event.issue.user?.login ?? 'ghost',
    issueAuthorAssociation: event.issue.author_association ?? 'NONE',
    issueState: event.issue.state,
    locked: event.issue.locked ?? false,
    commentCreatedAt: event.comment.created_at,
  };
}

function describeIssues(error: z.ZodError): string {
  return error.issues
    .map((issue) => `${issue.path.length > 0 ? issue.path.join('.') : '(payload)'}: ${issue.message}`)
    .join('; ');
}

function skip(reason: string): Trigger {
  return { kind: 'skip', reason };
}
