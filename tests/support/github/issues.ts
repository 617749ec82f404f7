// Issues, issue comments and their reactions: the handlers, and the seeds tests write with.
import { commentJson, issueJson, timestamp } from './json.js';
import { conditionalGet, etagOf } from './http.js';
import { renderedFields } from './rendered.js';
import { DOCS, commentBody, intParam, paged } from './replies.js';
import type { HandlerTable } from './replies.js';
import { commentCount, createComment, react, requireComment, requireIssue } from './state.js';
import type { Emu } from './state.js';
import type { CommentState, TransferState } from './types.js';
import type { Reply } from './replies.js';

export function issueHandlers(emu: Emu): HandlerTable {
  return {
    'issues/get': ({ match, headers }) => {
      const moved = emu.transfers.get(intParam(match, 'issue_number'));
      if (moved) return movedPermanently(emu, moved);
      const issue = requireIssue(emu, intParam(match, 'issue_number'));
      const json = issueJson(emu, issue, commentCount(emu, issue.number));
      return { status: 200, body: { ...json, ...renderedFields(emu, { headers, match }, issue.body) } };
    },
    'issues/list-comments': ({ match, url, headers }) => {
      const issue = requireIssue(emu, intParam(match, 'issue_number'));
      const since = url.searchParams.get('since');
      const all = [...emu.state.comments.values()]
        .filter((c) => c.issue_number === issue.number && (!since || c.updated_at >= since))
        .sort((a, b) => a.id - b.id);
      return paged(all, url, emu.api, (c) => ({
        ...commentJson(emu, c),
        ...renderedFields(emu, { headers, match }, c.body),
      }));
    },
    'issues/create-comment': ({ match, body }) => {
      const issue = requireIssue(emu, intParam(match, 'issue_number'));
      const text = commentBody(body, `${DOCS}/issues/comments#create-an-issue-comment`);
      const json = commentJson(emu, createComment(emu, issue.number, emu.actor, text));
      return { status: 201, body: json, headers: { location: json.url } };
    },
    'issues/get-comment': (request) => {
      // The ETag covers the whole answer (a reaction changes it too), as a hash of the response would.
      const json = commentJson(emu, requireComment(emu, intParam(request.match, 'comment_id')));
      return conditionalGet(request, JSON.stringify(json), () => json);
    },
    'issues/update-comment': ({ match, body }) => {
      const comment = requireComment(emu, intParam(match, 'comment_id'));
      comment.body = commentBody(body, `${DOCS}/issues/comments#update-an-issue-comment`);
      comment.versions.push(comment.body);
      comment.updated_at = timestamp();
      // Assumed, not documented: GitHub's answer to a write carries the ETag a read of it would.
      const json = commentJson(emu, comment);
      return { status: 200, body: json, headers: { etag: etagOf(JSON.stringify(json)) } };
    },
    'reactions/create-for-issue-comment': ({ match, body }) => {
      const comment = requireComment(emu, intParam(match, 'comment_id'));
      return react(emu, `comment:${comment.id}`, comment.reactions, (body as { content: string }).content);
    },
    'reactions/create-for-issue': ({ match, body }) => {
      const issue = requireIssue(emu, intParam(match, 'issue_number'));
      return react(emu, `issue:${issue.number}`, issue.reactions, (body as { content: string }).content);
    },
  };
}

/** Seeds a comment by someone else (e.g. the maintainer's `/agent ...`). */
export function addComment(emu: Emu, issueNumber: number, user: string, body: string): CommentState {
  if (!emu.state.issues.has(issueNumber)) {
    throw new Error(`addComment: no issue #${issueNumber} in the emulator`);
  }
  return createComment(emu, issueNumber, user, body);
}

/** Someone edits a comment in the web editor (a new version; the browser sends CRLF line ends). */
export function editComment(emu: Emu, commentId: number, body: string): CommentState {
  const comment = requireComment(emu, commentId);
  comment.body = body.replace(/\r?\n/g, '\r\n');
  comment.versions.push(comment.body);
  comment.updated_at = timestamp(new Date(Math.max(Date.now(), Date.parse(comment.updated_at) + 1000)));
  return comment;
}

/**
 * Transfers an issue out: it leaves this repository with its comments. GitHub's REST docs for "Get an issue":
 * "The API returns a 301 Moved Permanently status if the issue was transferred to another repository"
 * (https://docs.github.com/rest/issues/issues#get-an-issue); its `Location`, as for a moved repository,
 * names the new repository by id (`/repositories/<id>/issues/<number>`), and a client that follows it gets
 * the issue as it is there. Its sub-resources (comments, events) are not redirected: they answer 404.
 */
export function transferIssue(
  emu: Emu,
  number: number,
  to: { repository: string; repositoryId: number; newNumber: number },
): TransferState {
  const issue = emu.state.issues.get(number);
  if (!issue || issue.pull_request) throw new Error(`transferIssue: no issue #${number} to transfer`);
  emu.state.issues.delete(number);
  for (const [id, comment] of emu.state.comments)
    if (comment.issue_number === number) emu.state.comments.delete(id);
  const transfer: TransferState = {
    to: to.repository,
    repositoryId: to.repositoryId,
    number: to.newNumber,
    issue,
  };
  emu.transfers.set(number, transfer);
  return transfer;
}

/** Where a transferred issue is now, as GitHub's API addresses it. */
const movedUrl = (emu: Emu, moved: TransferState) =>
  `${emu.api}/repositories/${moved.repositoryId}/issues/${moved.number}`;

/** GitHub's 301 for a transferred issue, its body as GitHub words a redirect. */
function movedPermanently(emu: Emu, moved: TransferState): Reply {
  const url = movedUrl(emu, moved);
  return {
    status: 301,
    headers: { location: url },
    body: {
      message: 'Moved Permanently',
      url,
      documentation_url:
        'https://docs.github.com/rest/guides/best-practices-for-using-the-rest-api#follow-redirects',
    },
  };
}

/**
 * The answer at a transferred issue's new address (`GET /repositories/<id>/issues/<number>`, which GitHub's
 * OpenAPI description does not list): the issue as the other repository has it. Undefined for any other
 * request, which the OpenAPI check then judges.
 */
export function movedIssueAnswer(emu: Emu, method: string, url: URL): Reply | undefined {
  const at = /^\/repositories\/(\d+)\/issues\/(\d+)$/.exec(url.pathname);
  if (method !== 'GET' || !at) return undefined;
  const moved = [...emu.transfers.values()].find(
    (t) => t.repositoryId === Number(at[1]) && t.number === Number(at[2]),
  );
  if (!moved) return undefined;
  const [owner = '', repo = ''] = moved.to.split('/');
  const there = { ...emu, owner, repo };
  return { status: 200, body: issueJson(there, { ...moved.issue, number: moved.number }, 0) };
}
