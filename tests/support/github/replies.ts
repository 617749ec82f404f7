// What a handler receives and answers, GitHub's error bodies, and the small request helpers handlers share.
import type { IncomingMessage } from 'node:http';
import type { OperationMatch } from './openapi.js';

export const DOCS = 'https://docs.github.com/rest';

/** GitHub's cap on comment and pull request bodies, in characters. */
const MAX_BODY_CHARS = 65_536;

export interface Reply {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

export interface Request {
  method: string;
  headers: IncomingMessage['headers'];
  url: URL;
  body: unknown;
  match: OperationMatch;
}

export type Handler = (request: Request) => Reply | Promise<Reply>;

/** Handlers by OpenAPI operationId (e.g. 'issues/get'): each resource module contributes one table. */
export type HandlerTable = Record<string, Handler>;

/** Thrown by a handler to answer with an error status and GitHub's error body. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
  ) {
    super(`HTTP ${status}`);
  }
}

export const notFound = () =>
  new HttpError(404, { message: 'Not Found', documentation_url: DOCS, status: '404' });

/** What GitHub answers an installation token that lacks the permission an operation needs. */
export const notAccessible = (docs: string) =>
  new HttpError(403, {
    message: 'Resource not accessible by integration',
    documentation_url: docs,
    status: '403',
  });

export function validationFailed(errors: Array<Record<string, string>>, docs: string): HttpError {
  return new HttpError(422, { message: 'Validation Failed', errors, documentation_url: docs, status: '422' });
}

/** What GitHub's validation errors name as the resource a body belongs to. */
type BodyResource = 'IssueComment' | 'PullRequest' | 'PullRequestReview' | 'PullRequestReviewComment';

/** Bodies over GitHub's size cap get a 422, as they would from GitHub. */
export function rejectLongBody(resource: BodyResource, body: string, docs: string): void {
  if ([...body].length <= MAX_BODY_CHARS) return;
  const message = `Body is too long (maximum is ${MAX_BODY_CHARS} characters)`;
  throw validationFailed([{ resource, code: 'custom', field: 'body', message }], docs);
}

/** The `body` of a comment request, refused with a 422 when blank or too long. */
export function commentBody(body: unknown, docs: string, resource: BodyResource = 'IssueComment'): string {
  const text = String((body as { body: string }).body);
  if (text.trim() === '') {
    throw validationFailed([{ resource, code: 'missing_field', field: 'body' }], docs);
  }
  rejectLongBody(resource, text, docs);
  return text;
}

export function intParam(match: OperationMatch, name: string): number {
  return Number(match.params[name]);
}

/** One page of `items` (`per_page`, `page` from the query) as a 200, with GitHub's Link header. */
export function paged<T>(items: T[], url: URL, api: string, toJson: (item: T) => unknown): Reply {
  const perPage = Math.min(Math.max(Number(url.searchParams.get('per_page') ?? 30) || 30, 1), 100);
  const page = Math.max(Number(url.searchParams.get('page') ?? 1) || 1, 1);
  const last = Math.max(Math.ceil(items.length / perPage), 1);
  const linkTo = (n: number) => {
    const next = new URL(url.pathname + url.search, api);
    next.searchParams.set('per_page', String(perPage));
    next.searchParams.set('page', String(n));
    return next.toString();
  };
  const rels: string[] = [];
  if (page < last) rels.push(`<${linkTo(page + 1)}>; rel="next"`, `<${linkTo(last)}>; rel="last"`);
  if (page > 1) rels.push(`<${linkTo(1)}>; rel="first"`, `<${linkTo(Math.min(page - 1, last))}>; rel="prev"`);
  return {
    status: 200,
    body: items.slice((page - 1) * perPage, page * perPage).map(toJson),
    ...(rels.length ? { headers: { link: rels.join(', ') } } : {}),
  };
}
