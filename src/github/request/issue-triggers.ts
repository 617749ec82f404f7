// The ways in besides a comment: an issue labeled with the `label` input or assigned to the `assignee` input
// (the issue's title and body are the task), and `workflow_dispatch` with inputs `issue` and `task`. Pure:
// reads the payload only; a dispatch names an issue that the caller then reads (dispatchTrigger).
import { z } from 'zod';
import { issueSummary, type IssueSummary } from '../api/issue-summary.js';
import { stripHidden } from '../thread/hidden-text.js';
import {
  askFor,
  commentEventSchema,
  describeIssues,
  isBot,
  parseTrigger,
  repositorySchema,
  senderSchema,
  skip,
  type Trigger,
  type TriggerSource,
} from './trigger.js';

export interface IssueTriggerOptions {
  /** The comment prefix (`trigger` input). */
  prefix: string;
  /** The `label` input: an `issues` `labeled` event with this label asks for a run; empty is off. */
  label: string;
  /** The `assignee` input: an `issues` `assigned` event to this login asks for a run; empty is off. */
  assignee: string;
}

/** A `workflow_dispatch`: run `task` on issue `issueNumber` as if `sender` had commented it. */
export interface DispatchRequest {
  kind: 'dispatch';
  issueNumber: number;
  task: string;
  sender: string;
  owner: string;
  repo: string;
}

const issuesEventSchema = z.object({
  action: z.string(),
  issue: commentEventSchema.shape.issue.extend({ html_url: z.string(), updated_at: z.string() }),
  label: z.object({ name: z.string() }).nullish(),
  assignee: z.object({ login: z.string() }).nullish(),
  repository: repositorySchema,
  sender: senderSchema,
});

const dispatchEventSchema = z.object({
  inputs: z.record(z.string(), z.unknown()).nullish(),
  repository: repositorySchema,
  sender: senderSchema,
});

/** Every event that may ask for a run, the comment ones (trigger.ts) included. */
export function readTrigger(
  eventName: string,
  payload: unknown,
  options: IssueTriggerOptions,
): Trigger | DispatchRequest {
  if (eventName === 'issues') return issuesTrigger(payload, options);
  if (eventName === 'workflow_dispatch') return dispatchRequest(payload);
  return parseTrigger(eventName, payload, options.prefix, ['issues', 'workflow_dispatch']);
}

function issuesTrigger(payload: unknown, { label, assignee }: IssueTriggerOptions): Trigger {
  const parsed = issuesEventSchema.safeParse(payload);
  if (!parsed.success) return skip(`malformed issues payload: ${describeIssues(parsed.error)}`);
  const event = parsed.data;
  const source =
    event.action === 'labeled' ? 'label' : event.action === 'assigned' ? 'assignment' : undefined;
  if (!source) return skip(`issue ${event.action}, ignored (labeled and assigned can ask for a run)`);
  if (source === 'label') {
    if (!label) return skip('an issue was labeled, and the label input is empty');
    if (event.label?.name.toLowerCase() !== label.toLowerCase())
      return skip(`label '${event.label?.name ?? ''}' is not '${label}'`);
  } else {
    if (!assignee) return skip('an issue was assigned, and the assignee input is empty');
    if (event.assignee?.login.toLowerCase() !== assignee.toLowerCase())
      return skip(`assigned to '${event.assignee?.login ?? ''}', not '${assignee}'`);
  }
  if (isBot(event.sender))
    return skip(`${source === 'label' ? 'labeled' : 'assigned'} by bot ${event.sender.login}, ignored`);
  const { issue } = event;
  const task = stripHidden(`${issue.title}\n\n${issue.body ?? ''}`).trim();
  return {
    kind: 'run',
    request: { kind: 'task', task },
    ...issueSource(
      { kind: source, at: issue.updated_at },
      event.sender.login,
      event.repository,
      issueSummary(issue, issue.pull_request != null),
    ),
  };
}

function dispatchRequest(payload: unknown): DispatchRequest | Trigger {
  const parsed = dispatchEventSchema.safeParse(payload);
  if (!parsed.success) return skip(`malformed workflow_dispatch payload: ${describeIssues(parsed.error)}`);
  const { inputs, repository, sender } = parsed.data;
  const number = String(inputs?.issue ?? '')
    .trim()
    .replace(/^#/, '');
  if (!/^\d+$/.test(number) || Number(number) <= 0)
    return skip(
      `workflow_dispatch needs the input issue, an issue or pull request number, got '${String(inputs?.issue ?? '')}'`,
    );
  return {
    kind: 'dispatch',
    issueNumber: Number(number),
    task: typeof inputs?.task === 'string' ? inputs.task : '',
    sender: sender.login,
    owner: repository.owner.login,
    repo: repository.name,
  };
}

/**
 * A dispatch as if its sender had commented the task on the issue: `plan`, `go`, `continue` and `cancel`
 * read as in a comment. No bot rule: only people (or their automation) with write access can dispatch.
 * `issue`: the one the dispatch names, as `GET /repos/{owner}/{repo}/issues/{n}` gives it.
 */
export function dispatchTrigger(
  request: DispatchRequest,
  issue: IssueSummary & { htmlUrl: string },
): Trigger {
  const task = stripHidden(request.task).trim();
  const { htmlUrl: _, ...fields } = issue;
  const source = issueSource(
    { kind: 'dispatch', at: new Date().toISOString() },
    request.sender,
    { name: request.repo, owner: { login: request.owner } },
    fields,
  );
  return askFor(task, source);
}

/** No comment asked: reactions go on the issue itself (reactionTarget in trigger.ts). */
function issueSource(
  origin: TriggerSource['origin'] & { kind: 'label' | 'assignment' | 'dispatch' },
  sender: string,
  repository: z.infer<typeof repositorySchema>,
  issue: IssueSummary,
): TriggerSource {
  return { origin, ...issue, sender, owner: repository.owner.login, repo: repository.name };
}
