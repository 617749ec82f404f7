import { describe, expect, it } from 'vitest';
import { checkRequest, matchOperation, validateRequest, validateResponse } from './openapi.js';

// The description is parsed on first use and cached for the rest of this file.

describe('matchOperation', () => {
  it('maps a concrete path to its operation and path parameters', () => {
    expect(matchOperation('GET', '/repos/octo-org/hello-world/issues/12')).toEqual({
      operationId: 'issues/get',
      pathTemplate: '/repos/{owner}/{repo}/issues/{issue_number}',
      params: { owner: 'octo-org', repo: 'hello-world', issue_number: '12' },
    });
  });

  it('prefers literal segments over parameters when several templates match', () => {
    // `/issues/comments` also fits `/issues/{issue_number}`.
    expect(matchOperation('GET', '/repos/o/r/issues/comments')?.operationId).toBe(
      'issues/list-comments-for-repo',
    );
    expect(matchOperation('POST', '/repos/o/r/issues/comments/7/reactions')?.operationId).toBe(
      'reactions/create-for-issue-comment',
    );
  });

  it('decodes parameters and lets a trailing file path or ref span segments', () => {
    expect(matchOperation('GET', '/repos/o/r/collaborators/some%5Bbot%5D/permission')?.params.username).toBe(
      'some[bot]',
    );
    expect(matchOperation('GET', '/repos/o/r/contents/src/agent/todos.ts')).toMatchObject({
      operationId: 'repos/get-content',
      params: { path: 'src/agent/todos.ts' },
    });
    expect(matchOperation('GET', '/repos/o/r/git/ref/heads/agent/x')?.params.ref).toBe('heads/agent/x');
  });

  it('returns undefined for unknown paths and for methods a path does not have', () => {
    expect(matchOperation('GET', '/repos/o/r/nonsense/1')).toBeUndefined();
    expect(matchOperation('DELETE', '/repos/o/r/pulls')).toBeUndefined();
  });
});

describe('validateRequest', () => {
  it('accepts well-formed requests', () => {
    expect(validateRequest('POST', '/repos/o/r/issues/1/comments', { body: 'hi' })).toEqual([]);
    expect(validateRequest('PATCH', '/repos/o/r/issues/comments/99', { body: 'edited' })).toEqual([]);
    expect(validateRequest('POST', '/repos/o/r/issues/comments/99/reactions', { content: 'eyes' })).toEqual(
      [],
    );
    expect(
      validateRequest('POST', '/repos/o/r/pulls', { title: 't', head: 'agent/x', base: 'main', draft: true }),
    ).toEqual([]);
    expect(
      validateRequest(
        'GET',
        'http://127.0.0.1:1/repos/o/r/pulls?state=all&head=o:agent/x&per_page=100',
        undefined,
      ),
    ).toEqual([]);
  });

  it('reports a body missing a required field', () => {
    const problems = validateRequest('POST', '/repos/o/r/issues/1/comments', { text: 'hi' });
    expect(problems).toEqual([expect.stringMatching(/must have required property 'body'/)]);
    expect(validateRequest('POST', '/repos/o/r/pulls', { title: 't', head: 'x' })).toEqual([
      expect.stringMatching(/required property 'base'/),
    ]);
    expect(validateRequest('POST', '/repos/o/r/issues/1/comments', undefined)).toEqual([
      'body: request body is required',
    ]);
  });

  it('reports a reaction content outside the enum', () => {
    const problems = validateRequest('POST', '/repos/o/r/issues/comments/5/reactions', { content: 'smile' });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(
      /body\/content must be equal to one of the allowed values \(\+1, -1,.*eyes\)/,
    );
  });

  it('reports wrong JSON types in the body', () => {
    expect(
      validateRequest('POST', '/repos/o/r/pulls', { title: 't', head: 'x', base: 'main', draft: 'yes' }),
    ).toEqual(['body: body/draft must be boolean']);
    expect(validateRequest('PATCH', '/repos/o/r/issues/comments/5', { body: 42 })).toEqual([
      'body: body/body must be string',
    ]);
  });

  it('reports unknown routes and methods', () => {
    expect(validateRequest('GET', '/repos/o/r/nonsense', undefined)).toEqual([
      'route: unknown route: GET /repos/o/r/nonsense',
    ]);
    expect(validateRequest('DELETE', '/repos/o/r/pulls', undefined)).toEqual([
      expect.stringMatching(/^route: method not allowed: DELETE/),
    ]);
  });

  it('checks path and query parameters against their schemas', () => {
    expect(checkRequest('GET', '/repos/o/r/issues/abc', undefined).problems).toEqual([
      { kind: 'path', message: 'path parameter "issue_number" must be integer' },
    ]);
    const problems = validateRequest('GET', '/repos/o/r/pulls?state=merged&per_page=ten', undefined);
    expect(problems).toEqual([
      expect.stringMatching(
        /query parameter "state" must be equal to one of the allowed values \(open, closed, all\)/,
      ),
      'query: query parameter "per_page" must be integer',
    ]);
  });
});

describe('validateResponse', () => {
  it('flags missing required fields and undocumented statuses', () => {
    const problems = validateResponse('issues/create-comment', 201, { id: 1, body: 'x' });
    expect(problems).toContain("response 201 must have required property 'html_url'");
    expect(validateResponse('issues/create-comment', 204, undefined)).toEqual([
      'issues/create-comment does not document status 204',
    ]);
    expect(validateResponse('no/such-operation', 200, {})).toEqual(['unknown operation no/such-operation']);
  });

  it('accepts a documented error body and enforces nullable fields', () => {
    const error = {
      message: 'Validation Failed',
      documentation_url: 'https://docs.github.com/rest',
      errors: [],
    };
    expect(validateResponse('pulls/create', 422, error)).toEqual([]);
    const permission = { permission: 'read', role_name: 'read', user: null };
    expect(validateResponse('repos/get-collaborator-permission-level', 200, permission)).toEqual([]);
    expect(
      validateResponse('repos/get-collaborator-permission-level', 200, { ...permission, user: 5 }),
    ).not.toEqual([]);
  });
});
