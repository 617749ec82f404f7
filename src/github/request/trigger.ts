// What an event asks of the action: run a task, show usage, or nothing. Pure: reads the payload only.
import { z } from 'zod';
import { issueSummary, type IssueSummary } from '../api/issue-summary.js';
import { stripHidden } from '../thread/hidden-text.js';

export const MAX_TASK_CHARS = 20_000;

/**
 * What asked for the run: an issue or PR conversation comment, a review comment on a line, a submitted
 * review, each with its id in its own kind's numbering; or, with no comment (see issue-triggers.ts), a
 * label, an assignment or a workflow_dispatch. `at`: when it asked (the comment's or review's time; the
 * issue's last update for a label or an assignment, the run's start for a dispatch).
 */
export type TriggerOrigin =
  | { kind: 'issue_comment'; id: number; at: string }
  /** `threadId`: the id of its thread's top comment (its own when it starts the thread). */
  | { kind: 'review_comment'; id: number; threadId: number; at: string }
  | { kind: 'review'; id: number; at: string }
  | { kind: 'label' | 'assignment' | 'dispatch'; at: string };

/** What a run asks, read from the words after the prefix (`askFor`). */
export type RunRequest =
  /** A task, in the maintainer's words. */
  | { kind: 'task'; task: string }
  /** `continue [more instructions]`: pick up an earlier run's list; `instructions` are the words after it. */
  | { kind: 'continue'; task: string; instructions: string }
  /** `plan <task>`: only a plan of the task (`task` is the words after the keyword), delivering nothing. */
  | { kind: 'plan'; task: string }
  /** `go [more instructions]`: run the plan the thread holds. */
  | { kind: 'go'; task: string; instructions: string }
  /** `cancel`: stop the run going on this thread. */
  | { kind: 'cancel'; task: string };

/** Who asked, where, and what the issue (or pull request) says (its summary, as the API reads it too). */
export interface TriggerSource extends IssueSummary {
  origin: TriggerOrigin;
  /** Login of the commenter. */
  sender: string;
  /** The commenter's numeric account id (for the commit's Co-authored-by address). */
  senderId?: number;
  owner: string;
  repo: string;
}

/**
 * What a trigger's reactions go on: the comment that asked, or the issue itself for a label, an assignment or
 * a dispatch; undefined for a review, which takes no reactions through the REST API.
 */
type ReactionTarget =
  { on: 'issue comment' | 'review comment'; id: number } | { on: 'issue'; number: number };

export function reactionTarget({ origin, issueNumber }: TriggerSource): ReactionTarget | undefined {
  switch (origin.kind) {
    case 'review':
      return undefined;
    case 'issue_comment':
      return { on: 'issue comment', id: origin.id };
    case 'review_comment':
      return { on: 'review comment', id: origin.id };
    default:
      return { on: 'issue', number: issueNumber };
  }
}

/** The id of the comment (or review) that asked, undefined when no comment asked. */
export function askingId({ origin }: TriggerSource): number | undefined {
  return 'id' in origin ? origin.id : undefined;
}

export type Trigger =
  | ({ kind: 'run'; request: RunRequest } & TriggerSource)
  | ({ kind: 'usage' } & TriggerSource)
  | { kind: 'skip'; reason: string };

/** A trigger that asks for a run: a task, a plan, `go`, `continue` or `cancel`. */
export type RunTrigger = Extract<Trigger, { kind: 'run' }>;

// Only the fields read below; everything else in the payload is ignored.
const actionSchema = z.object({ action: z.string() });

export const repositorySchema = z.object({ name: z.string(), owner: z.object({ login: z.string() }) });
export const senderSchema = z.object({
  login: z.string(),
  type: z.string(),
  id: z.number().int().optional(),
});

export const commentEventSchema = z.object({
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
  repository: repositorySchema,
  sender: senderSchema,
});

/** The pull request of a review event: it plays the part of the issue. */
const pullSchema = commentEventSchema.shape.issue.omit({ pull_request: true });

/** A review event's pull request, with the repository its head is in (null: the fork was deleted). */
const reviewedPullSchema = pullSchema.extend({
  head: z.object({ repo: z.object({ full_name: z.string() }).nullable() }).optional(),
});

const reviewCommentEventSchema = z.object({
  comment: commentEventSchema.shape.comment.extend({ in_reply_to_id: z.number().int().nullish() }),
  pull_request: reviewedPullSchema,
  repository: repositorySchema,
  sender: senderSchema,
});

const reviewEventSchema = z.object({
  review: z.object({
    id: z.number().int(),
    html_url: z.string(),
    body: z.string().nullish(),
    submitted_at: z.string(),
  }),
  pull_request: reviewedPullSchema,
  repository: repositorySchema,
  sender: senderSchema,
});

/** The events that may ask for a run, and the one action of each that does. */
const EVENTS: Record<string, { action: string; noun: string }> = {
  issue_comment: { action: 'created', noun: 'comment' },
  pull_request_review_comment: { action: 'created', noun: 'review comment' },
  pull_request_review: { action: 'submitted', noun: 'review' },
};

/** What any of the events says, once read: the text that may ask, who wrote it, and where. */
interface Request {
  body: string;
  sender: z.infer<typeof senderSchema>;
  source: TriggerSource;
  /** A review or review comment on a pull request whose head is in another repository (a fork). */
  fromFork: boolean;
}

/** Why a review (comment) on a fork's pull request cannot run, and what works instead. */
const FORK_REVIEW = (noun: string, prefix: string) =>
  `a ${noun} on a pull request from a fork cannot start todo-agent: GitHub runs this event with a read-only token and no secrets; comment \`${prefix} <task>\` on the pull request's conversation instead`;

/**
 * Reads an `issue_comment` (created), `pull_request_review_comment` (created) or `pull_request_review`
 * (submitted) event: a text starting with `triggerPrefix` asks for a run.
 */
export function parseTrigger(
  eventName: string,
  payload: unknown,
  triggerPrefix: string,
  otherEvents: readonly string[] = [],
): Trigger {
  const event = EVENTS[eventName];
  if (!event) {
    const can = [...Object.keys(EVENTS), ...otherEvents].join(', ');
    return skip(`event '${eventName}' cannot ask for a run (${can} can)`);
  }
  const action = actionSchema.safeParse(payload);
  if (!action.success) return skip(`malformed ${eventName} payload: ${describeIssues(action.error)}`);
  if (action.data.action !== event.action) return skip(`${event.noun} ${action.data.action}, ignored`);

  const read = readRequest(eventName, payload);
  if ('error' in read) return skip(`malformed ${eventName} payload: ${describeIssues(read.error)}`);
  const { body, sender, source } = read;

  if (isBot(sender)) return skip(`${event.noun} by bot ${sender.login}, ignored`);
  const asked = taskAfterPrefix(body, triggerPrefix);
  if (asked === undefined) return skip(`${event.noun} does not start with ${triggerPrefix}`);
  // GitHub runs these events of a fork's pull request with a read-only token and no secrets: say so at once.
  if (read.fromFork) return skip(FORK_REVIEW(event.noun, triggerPrefix));
  // The task too is read as the maintainer saw it: text pasted from elsewhere may carry hidden parts.
  const task = stripHidden(asked).trim();
  return askFor(task, source);
}

/** What a task asks, read as a comment's words after the prefix: a task, `plan`, `go`, `continue`, `cancel`. */
export function askFor(task: string, source: TriggerSource): Trigger {
  if (task === '') return { ...source, kind: 'usage' };
  return { ...source, kind: 'run', request: requestOf(task) };
}

function requestOf(task: string): RunRequest {
  if (PLAN.test(task)) return { kind: 'plan', task: afterKeyword(task, PLAN) };
  if (GO.test(task)) return { kind: 'go', task, instructions: afterKeyword(task, GO) };
  if (CANCEL.test(task)) return { kind: 'cancel', task };
  if (CONTINUE.test(task)) return { kind: 'continue', task, instructions: afterKeyword(task, CONTINUE) };
  return { kind: 'task', task };
}

/** The payload of one of the events, validated, as what it asks and where. */
function readRequest(eventName: string, payload: unknown): Request | { error: z.ZodError } {
  const read = readEvent(eventName, payload);
  if ('error' in read) return read;
  const { asking, issue, repository, sender } = read;
  const here = `${repository.owner.login}/${repository.name}`.toLowerCase();
  const head = 'head' in issue ? issue.head : undefined;
  return {
    body: asking.body ?? '',
    sender,
    fromFork: head !== undefined && head.repo?.full_name.toLowerCase() !== here,
    source: {
      origin: read.origin,
      ...issueSummary(issue, read.isPullRequest),
      sender: sender.login,
      ...(sender.id === undefined ? {} : { senderId: sender.id }),
      owner: repository.owner.login,
      repo: repository.name,
    },
  };
}

/** One event's payload in the shape all three share: the text that asks, the issue or pull request, who. */
type EventRead = {
  origin: TriggerOrigin;
  asking: { body?: string | null };
  issue: z.infer<typeof pullSchema> | z.infer<typeof reviewedPullSchema>;
  isPullRequest: boolean;
  repository: z.infer<typeof repositorySchema>;
  sender: Request['sender'];
};

function readEvent(eventName: string, payload: unknown): EventRead | { error: z.ZodError } {
  if (eventName === 'issue_comment') {
    const parsed = commentEventSchema.safeParse(payload);
    if (!parsed.success) return { error: parsed.error };
    const { comment, issue, ...rest } = parsed.data;
    const isPullRequest = issue.pull_request != null;
    const origin = { kind: 'issue_comment' as const, id: comment.id, at: comment.created_at };
    return { origin, asking: comment, issue, isPullRequest, ...rest };
  }
  if (eventName === 'pull_request_review_comment') {
    const parsed = reviewCommentEventSchema.safeParse(payload);
    if (!parsed.success) return { error: parsed.error };
    const { comment, pull_request, ...rest } = parsed.data;
    const threadId = comment.in_reply_to_id ?? comment.id;
    const origin = { kind: 'review_comment' as const, id: comment.id, threadId, at: comment.created_at };
    return { origin, asking: comment, issue: pull_request, isPullRequest: true, ...rest };
  }
  const parsed = reviewEventSchema.safeParse(payload);
  if (!parsed.success) return { error: parsed.error };
  const { review, pull_request, ...rest } = parsed.data;
  const origin = { kind: 'review' as const, id: review.id, at: review.submitted_at };
  return { origin, asking: review, issue: pull_request, isPullRequest: true, ...rest };
}

/** `continue` as the first word, alone or followed by more instructions ("continue, and add a test"). */
const CONTINUE = /^continue(?=$|[\s:,.;!-])/i;
/** `plan <task>`: only plan the task. */
const PLAN = /^plan(?=$|[\s:,.;!-])/i;
/**
 * `cancel` as the first word: stop the run going on this thread, at once (it never waits in the queue).
 * Words after it change nothing; a task that starts with the word is read as a cancel too, one rule for all.
 */
const CANCEL = /^cancel(?=$|[\s:,.;!-])/i;
/** `go`, alone or with more instructions: run the plan the thread holds. */
const GO = /^go(?=$|[\s:,.;!-])/i;

/** The words after a leading keyword (`continue, and add a test` → `and add a test`). */
function afterKeyword(task: string, keyword: RegExp): string {
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

export function isBot(sender: Request['sender']): boolean {
  return sender.type === 'Bot' || sender.login.endsWith('[bot]');
}

export function describeIssues(error: z.ZodError): string {
  return error.issues
    .map((issue) => `${issue.path.length > 0 ? issue.path.join('.') : '(payload)'}: ${issue.message}`)
    .join('; ');
}

export function skip(reason: string): Trigger {
  return { kind: 'skip', reason };
}
