// GitHubApi against the GitHub emulator over real HTTP, with the real retry and throttling plugins.
import { describe, expect, it } from 'vitest';
import { GitHubApi } from '../../src/github/api.js';
import { statusOf } from '../../src/github/octokit.js';
import { redactor } from '../../src/text/redact.js';
import {
  PACKAGE_HOSTS,
  secondaryRateLimit,
  type EmulatorOptions,
  type GitHubEmulator,
} from '../support/github/emulator.js';
import { TEST_REPO, TEST_TOKEN, useEmulatorPerTest } from '../support/github/per-test.js';

const startEmulator = useEmulatorPerTest();

async function apiFor(options: Partial<EmulatorOptions> = {}) {
  const emu = await startEmulator({
    permissions: { maintainer: 'admin', writer: 'write', reader: 'read' },
    issues: [{ number: 1, title: 'Tidy up', body: 'Please tidy.' }],
    ...options,
  });
  const warnings: string[] = [];
  const api = new GitHubApi({
    ...TEST_REPO,
    token: TEST_TOKEN,
    baseUrl: emu.url,
    warn: (message) => warnings.push(message),
  });
  return { api, emu, warnings };
}

const outcomes = (github: GitHubEmulator) => github.calls.map((c) => `${c.method} ${c.status}`);

describe('GitHubApi reads', () => {
  it('reads permissions, and a stranger (404) has none', async () => {
    const { api, emu } = await apiFor();
    expect(await api.access.permission('maintainer')).toBe('admin');
    expect(await api.access.permission('writer')).toBe('write');
    expect(await api.access.permission('reader')).toBe('read');
    expect(await api.access.permission('stranger')).toBe('none');
    expect(emu.violations).toEqual([]);
  });

  it('asks GitHub once per person for checks made together, and does not keep a failed answer', async () => {
    const { api, emu } = await apiFor();
    const permissionCalls = () =>
      emu.calls.filter((c) => c.operationId === 'repos/get-collaborator-permission-level').length;
    // The gate's check and the thread's authors' check, sent at the same moment.
    const answers = await Promise.all([api.access.permission('writer'), api.access.permission('writer')]);
    expect(answers).toEqual(['write', 'write']);
    expect(await api.access.permission('writer')).toBe('write');
    expect(permissionCalls()).toBe(1);
    emu.failNext(
      { method: 'GET', path: /\/collaborators\/reader\/permission$/ },
      { status: 404, body: { message: 'Not Found' } },
    );
    expect(await api.access.permission('reader')).toBe('none');
    emu.failNext(
      { method: 'GET', path: /\/collaborators\/maintainer\/permission$/ },
      { status: 401, body: { message: 'Bad credentials' } },
    );
    await expect(api.access.permission('maintainer')).rejects.toThrow();
    expect(await api.access.permission('maintainer')).toBe('admin');
    expect(permissionCalls()).toBe(4);
  });

  it('reads the default branch', async () => {
    const { api } = await apiFor({ defaultBranch: 'trunk' });
    expect(await api.refs.defaultBranch()).toBe('trunk');
  });

  it("reads GitHub's package hosts from GET /meta, and says so when its answer has none", async () => {
    const { api, emu } = await apiFor();
    expect(await api.packageHosts()).toEqual([...PACKAGE_HOSTS]);
    const older = await apiFor({ packageHosts: null });
    await expect(older.api.packageHosts()).rejects.toThrow('its answer has no domains.packages');
    expect([...emu.violations, ...older.emu.violations]).toEqual([]);
  });

  it('reads every page of a long thread, oldest first, telling bots from people', async () => {
    const { api, emu } = await apiFor();
    for (let i = 1; i <= 130; i++) emu.addComment(1, i % 10 === 0 ? 'github-actions[bot]' : 'alice', `c${i}`);
    const thread = await api.issues.comments(1);
    expect(thread).toHaveLength(130);
    expect(thread.map((c) => c.body)).toEqual(Array.from({ length: 130 }, (_, i) => `c${i + 1}`));
    expect(thread[9]).toMatchObject({ user: 'github-actions[bot]', userType: 'Bot' });
    expect(thread[0]).toMatchObject({ user: 'alice', userType: 'User' });
    expect(thread[0]!.htmlUrl).toMatch(/#issuecomment-\d+$/);
    expect(emu.calls.filter((c) => c.path.endsWith('/issues/1/comments'))).toHaveLength(2);
  });

  it('reads the head and base of a pull request, and who opened it', async () => {
    const { api } = await apiFor({
      issues: [{ number: 7, title: 'A change', user: 'alice', pull_request: { head: 'feature/x' } }],
    });
    expect(await api.pulls.pullHead(7)).toMatchObject({ ref: 'feature/x', sameRepo: true, author: 'alice' });
  });

  it('reads review comments with their place and thread, replies in a thread and reacts to a comment', async () => {
    const { api, emu } = await apiFor({
      issues: [{ number: 7, title: 'A change', pull_request: { head: 'feature/x' } }],
    });
    const top = emu.addReviewComment(7, 'alice', {
      body: 'Why?',
      path: 'a.py',
      line: 3,
      diffHunk: '@@ -1 +1,3 @@\n+x = 1',
    });
    const answer = emu.addReviewComment(7, 'maintainer', { body: '/agent explain', inReplyTo: top.id });
    const comments = await api.pulls.reviewComments(7);
    expect(comments).toEqual([
      expect.objectContaining({ id: top.id, user: 'alice', path: 'a.py', line: 3, body: 'Why?' }),
      expect.objectContaining({ id: answer.id, inReplyTo: top.id, path: 'a.py', line: 3 }),
    ]);
    expect(comments[0]).not.toHaveProperty('inReplyTo');
    expect(comments[0]).not.toHaveProperty('outdated');
    expect(comments[0]!.diffHunk).toBe('@@ -1 +1,3 @@\n+x = 1');
    expect(comments[0]!.reviewId).toBe(top.pull_request_review_id);

    const { id } = await api.pulls.replyInThread(7, top.id, 'Done.');
    expect(emu.state.reviewComments.get(id)).toMatchObject({ in_reply_to_id: top.id, body: 'Done.' });
    await api.issues.react(answer.id, 'eyes', 'review');
    expect(emu.state.reviewComments.get(answer.id)!.reactions).toEqual(['eyes']);
    expect(emu.violations).toEqual([]);
  });

  it('reads submitted reviews as comments dated when submitted, their bodies rendered', async () => {
    const { api, emu } = await apiFor({
      issues: [{ number: 7, title: 'A change', pull_request: { head: 'feature/x' } }],
    });
    const shot = emu.addAttachment(new Uint8Array([1]));
    const review = emu.addReview(7, 'alice', { body: `See ![](${shot})`, state: 'CHANGES_REQUESTED' });
    const [read, ...more] = await api.pulls.reviews(7);
    expect(more).toEqual([]);
    expect(read).toMatchObject({
      id: review.id,
      user: 'alice',
      state: 'CHANGES_REQUESTED',
      body: `See ![](${shot})`,
      createdAt: review.submitted_at,
      updatedAt: review.submitted_at,
    });
    expect(read!.bodyHtml).toMatch(/<img src="[^"]*\/private-user-images\/[^"]*\?jwt=/);
    expect(emu.violations).toEqual([]);
  });
});

describe('GitHubApi identity', () => {
  it.each([
    ['the workflow token', {}, 'github-actions[bot]'],
    ['a personal access token', { tokenUser: 'agent-machine-user' }, 'agent-machine-user'],
    ['an app installation token', { appBot: 'todo-app[bot]' }, 'todo-app[bot]'],
  ] as const)(
    'knows whom %s writes as, and counts only that login as its own',
    async (_k, options, login) => {
      const { api, emu } = await apiFor(options);
      const { id } = emu.addComment(1, 'maintainer', '/agent go');
      await api.issues.react(id, 'eyes');
      expect(await api.access.identity()).toBe(login);
      expect(await api.access.wroteIt({ user: login })).toBe(true);
      // Another bot, a lookalike, or a person is never us.
      for (const other of ['welcome-bot[bot]', 'github-actions', 'todo-app', 'maintainer']) {
        if (other !== login) expect(await api.access.wroteIt({ user: other })).toBe(false);
      }
      expect(emu.violations).toEqual([]);
    },
  );

  it('falls back to the workflow bot when neither GET /user nor a reaction told it', async () => {
    const { api } = await apiFor();
    expect(await api.access.identity()).toBe('github-actions[bot]');
  });

  it.each([
    ['the workflow token (its 👀 comes back from github-actions[bot])', {}, false],
    ['a classic token without the workflow scope', { tokenUser: 'u', tokenScopes: ['repo'] }, false],
    ['a classic token with it', { tokenUser: 'u', tokenScopes: ['repo', 'workflow'] }, true],
    ['a fine-grained token (GitHub lists no scopes)', { tokenUser: 'u' }, undefined],
    ['an app installation token', { appBot: 'todo-app[bot]' }, undefined],
  ] as const)('knows whether %s may change workflow files', async (_k, options, may) => {
    const { api, emu } = await apiFor(options);
    const { id } = emu.addComment(1, 'maintainer', '/agent go');
    // The first 👀 is still on its way when asked: the answer waits for whom it comes back as.
    const release = emu.holdNext({ method: 'POST', path: /\/reactions$/ });
    api.access.reacting(api.issues.react(id, 'eyes'));
    const asked = api.access.mayChangeWorkflows();
    release();
    expect(await asked).toBe(may);
    expect(emu.violations).toEqual([]);
  });
});

describe('GitHubApi writes', () => {
  it('creates and edits a comment, with secrets and token shapes redacted on the way out', async () => {
    const { api, emu } = await apiFor();
    redactor.add('api-test-secret-value');
    const shaped = `ghp_${'a'.repeat(36)}`;
    const { id } = await api.issues.createComment(1, `key api-test-secret-value and ${shaped}`);
    await api.issues.updateComment(id, `now ${shaped} again`);
    expect(emu.state.comments.get(id)?.versions).toEqual(['key *** and ***', 'now *** again']);
    expect(emu.violations).toEqual([]);
  });

  it('retries a comment edit that meets a 5xx (plugin-retry)', async () => {
    const { api, emu } = await apiFor();
    const { id } = emu.addComment(1, 'github-actions[bot]', 'v1');
    emu.failNext(
      { method: 'PATCH', path: /\/issues\/comments\/\d+$/ },
      { status: 502, body: { message: 'Bad gateway' } },
    );
    await api.issues.updateComment(id, 'v2');
    expect(outcomes(emu)).toEqual(['PATCH 502', 'PATCH 200']);
    expect(emu.state.comments.get(id)?.body).toBe('v2');
  });

  it('retries a reaction that meets a 5xx (plugin-retry)', async () => {
    const { api, emu } = await apiFor();
    const { id } = emu.addComment(1, 'maintainer', '/agent go');
    emu.failNext(
      { method: 'POST', path: /\/reactions$/ },
      { status: 500, body: { message: 'Server error' } },
    );
    await api.issues.react(id, 'eyes');
    expect(outcomes(emu)).toEqual(['POST 500', 'POST 201']);
    expect(emu.state.comments.get(id)?.reactions).toEqual(['eyes']);
  });

  it('waits out a secondary rate limit (plugin-throttling) and says so', async () => {
    const { api, emu, warnings } = await apiFor();
    const { id } = emu.addComment(1, 'github-actions[bot]', 'v1');
    emu.failNext({ method: 'PATCH', path: /\/issues\/comments\/\d+$/ }, secondaryRateLimit(1));
    await api.issues.updateComment(id, 'v2');
    expect(outcomes(emu)).toEqual(['PATCH 403', 'PATCH 200']);
    expect(emu.state.comments.get(id)?.body).toBe('v2');
    expect(warnings).toEqual([expect.stringMatching(/secondary rate limit on PATCH .*; retrying in 1 s$/)]);
  });

  it('does not wait minutes for a rate limit: it gives up and the error reaches the caller', async () => {
    const { api, emu, warnings } = await apiFor();
    const { id } = emu.addComment(1, 'github-actions[bot]', 'v1');
    emu.failNext({ method: 'PATCH', path: /\/issues\/comments\/\d+$/ }, secondaryRateLimit(900));
    const error = await api.issues.updateComment(id, 'v2').then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(statusOf(error)).toBe(403);
    expect(outcomes(emu)).toEqual(['PATCH 403']);
    expect(warnings).toEqual([expect.stringMatching(/giving up \(retry after 900 s\)$/)]);
  });

  it('passes on a refusal that no retry would fix (a deleted comment: 404)', async () => {
    const { api, emu } = await apiFor();
    const error = await api.issues.updateComment(424242, 'gone').then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(statusOf(error)).toBe(404);
    expect(outcomes(emu)).toEqual(['PATCH 404']);
  });
});

describe('GitHubApi.commentIfChanged', () => {
  it('answers undefined to an unchanged comment (a free 304), and the new body with a new ETag after an edit', async () => {
    const { api, emu } = await apiFor();
    const { id } = await api.issues.createComment(1, 'v1');
    const first = await api.issues.commentIfChanged(id);
    expect(first?.body).toBe('v1');
    expect(first?.etag).toMatch(/^W\/"/);
    expect(await api.issues.commentIfChanged(id, first!.etag)).toBeUndefined();
    expect(emu.notModified).toBe(1);
    emu.editComment(id, 'v2\nmore');
    const second = await api.issues.commentIfChanged(id, first!.etag);
    expect(second?.body).toBe('v2\r\nmore');
    expect(second?.etag).not.toBe(first!.etag);
    expect(emu.violations).toEqual([]);
  });

  it('looks for free right after our own edit, with the ETag of the edit, until someone else edits', async () => {
    const { api, emu } = await apiFor();
    const { id } = await api.issues.createComment(1, 'v1');
    const ours = await api.issues.updateComment(id, 'v2');
    expect(ours).toMatchObject({ id, body: 'v2', etag: expect.stringMatching(/^W\//) });
    expect(await api.issues.commentIfChanged(id, ours.etag)).toBeUndefined();
    expect(emu.notModified).toBe(1);
    emu.editComment(id, 'v3');
    expect((await api.issues.commentIfChanged(id, ours.etag))?.body).toBe('v3');
    expect(emu.violations).toEqual([]);
  });
});

describe('GitHubApi.openPull', () => {
  it('opens a pull request with redacted title and body', async () => {
    const { api, emu } = await apiFor();
    const shaped = `github_pat_${'b'.repeat(30)}`;
    const pr = await api.pulls.openPull({
      head: 'agent/x',
      base: 'main',
      title: `Fix ${shaped}`,
      body: `Closes #1 ${shaped}`,
    });
    expect(pr).toMatchObject({ reused: false, ours: true });
    expect(emu.state.pulls).toEqual([
      expect.objectContaining({ number: pr.number, head: 'agent/x', title: 'Fix ***' }),
    ]);
    expect(emu.state.pulls[0]!.body).toBe('Closes #1 ***');
    expect(pr.htmlUrl).toBe(emu.state.pulls[0]!.html_url);
    expect(emu.violations).toEqual([]);
  });

  it('reuses the open pull request of the branch, and leaves the body a person wrote alone', async () => {
    const { api, emu } = await apiFor({
      issues: [
        { number: 1, title: 'Tidy up' },
        {
          number: 5,
          title: 'Opened by hand',
          body: 'My words',
          user: 'maintainer',
          pull_request: { head: 'agent/x' },
        },
      ],
    });
    const pr = await api.pulls.openPull({ head: 'agent/x', base: 'main', title: 'Fix', body: 'Closes #1' });
    expect(pr).toEqual({ number: 5, htmlUrl: emu.state.pulls[0]!.html_url, reused: true, ours: false });
    expect(emu.state.pulls).toHaveLength(1);
    expect(emu.state.pulls[0]!.body).toBe('My words');
    // It asks to create first (a fresh branch, the usual case, costs one request), and GitHub refuses.
    expect(emu.writes().map((call) => `${call.method} ${call.status}`)).toEqual(['POST 422']);
    expect(emu.violations).toEqual([]);
  });

  it('counts a reused pull request that a personal token’s user opened (an earlier run) as its own', async () => {
    const { api, emu } = await apiFor({
      tokenUser: 'agent-machine-user',
      issues: [
        { number: 1, title: 'Tidy up' },
        {
          number: 5,
          title: 'Earlier run',
          body: 'old',
          user: 'agent-machine-user',
          pull_request: { head: 'agent/x' },
        },
        { number: 7, title: 'By hand', body: 'Mine', user: 'maintainer', pull_request: { head: 'feature' } },
      ],
    });
    expect(await api.access.selfLogin()).toBe('agent-machine-user');
    const earlier = await api.pulls.openPull({
      head: 'agent/x',
      base: 'main',
      title: 'Fix',
      body: 'Closes #1',
    });
    const byHand = await api.pulls.openPull({
      head: 'feature',
      base: 'main',
      title: 'Fix',
      body: 'Closes #1',
    });
    expect([earlier.ours, byHand.ours]).toEqual([true, false]);
    // Reusing changes nothing (two refused creates): the caller decides whether to rewrite a description
    // that is its own.
    expect(emu.writes().map((call) => `${call.method} ${call.status}`)).toEqual(['POST 422', 'POST 422']);
    // Asked once, however often it is needed.
    expect(emu.calls.filter((call) => call.path === '/user')).toHaveLength(1);
    expect(emu.violations).toEqual([]);
  });

  it('opens a pull request for a fresh branch in one request, and looks only when GitHub refuses', async () => {
    const { api, emu } = await apiFor({
      issues: [
        { number: 1, title: 'Tidy up' },
        { number: 6, title: 'Opened meanwhile', user: 'maintainer', pull_request: { head: 'agent/y' } },
      ],
    });
    const fresh = await api.pulls.openPull({
      head: 'agent/x',
      base: 'main',
      title: 'Fix',
      body: 'Closes #1',
    });
    expect(fresh).toMatchObject({ reused: false, ours: true });
    expect(outcomes(emu)).toEqual(['POST 201']);
    const taken = await api.pulls.openPull({
      head: 'agent/y',
      base: 'main',
      title: 'Fix',
      body: 'Closes #1',
    });
    expect(taken).toMatchObject({ number: 6, reused: true });
    // A PR a user opened is the action's own only if the token is that user's; the workflow's token may not ask.
    expect(outcomes(emu).slice(1)).toEqual(['POST 422', 'GET 200', 'GET 403']);
    expect(emu.state.pulls).toHaveLength(2);
  });

  it('passes on a create that fails for another reason', async () => {
    const { api, emu } = await apiFor();
    emu.failNext(
      { method: 'POST', path: /\/pulls$/ },
      { status: 422, body: { message: 'Validation Failed' } },
    );
    const error = await api.pulls.openPull({ head: 'agent/x', base: 'main', title: 'Fix', body: 'b' }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(statusOf(error)).toBe(422);
    expect(emu.state.pulls).toEqual([]);
  });
});

describe('statusOf', () => {
  it('reads a numeric status and nothing else', () => {
    expect(statusOf({ status: 404 })).toBe(404);
    expect(statusOf({ status: '404' })).toBeUndefined();
    expect(statusOf(null)).toBeUndefined();
    expect(statusOf(new Error('x'))).toBeUndefined();
  });
});

describe('GitHubApi workflow runs', () => {
  it('lists every unfinished run, past the first page of 100, and none that completed', async () => {
    const { api, emu } = await apiFor();
    for (let id = 1; id <= 130; id++) emu.addWorkflowRun({ id, status: id % 10 ? 'queued' : 'in_progress' });
    emu.addWorkflowRun({ id: 131, status: 'completed', conclusion: 'success' });
    const runs = await api.runs.unfinishedRuns();
    expect(runs.map((run) => run.id).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 130 }, (_, i) => i + 1),
    );
    expect(emu.calls.filter((call) => call.query.status === 'queued')).toHaveLength(2);
    expect(emu.violations).toEqual([]);
  });
});
