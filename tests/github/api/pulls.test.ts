// Pulls (src/github/api/pulls.ts) against the GitHub emulator: a pull request's head, review comments and
// reviews, and the pull request opened or reused.
import { describe, expect, it } from 'vitest';
import { statusOf } from '../../../src/github/api/octokit.js';
import { outcomes, useApiPerTest } from '../../support/github/per-test.js';

const apiFor = useApiPerTest();

/** Pull request #5, open on the branch agent/x: opened by `user`, with its `title` and `body`. */
const openOnAgentX = (title: string, body: string, user: string) => ({
  number: 5,
  title,
  body,
  user,
  pull_request: { head: 'agent/x' },
});

describe('reading a pull request', () => {
  it('reads the head and base of a pull request, and who opened it', async () => {
    const { api } = await apiFor({
      issues: [{ number: 7, title: 'A change', user: 'alice', pull_request: { head: 'feature/x' } }],
    });
    expect(await api.pulls.pullHead(7)).toMatchObject({ ref: 'feature/x', sameRepo: true, author: 'alice' });
  });

  it("reads a fork's head, and whether its author allows edits from maintainers", async () => {
    const fork = (maintainerCanModify: boolean) => ({ owner: 'contributor', maintainerCanModify });
    const { api } = await apiFor({
      issues: [
        {
          number: 7,
          title: 'Allows',
          user: 'contributor',
          pull_request: { head: 'patch-1', fork: fork(true) },
        },
        {
          number: 8,
          title: 'Does not',
          user: 'contributor',
          pull_request: { head: 'patch-2', fork: fork(false) },
        },
      ],
    });
    expect(await api.pulls.pullHead(7)).toMatchObject({
      repo: 'contributor/hello-world',
      ref: 'patch-1',
      sameRepo: false,
      maintainerCanModify: true,
    });
    expect(await api.pulls.pullHead(8)).toMatchObject({ ref: 'patch-2', maintainerCanModify: false });
    expect(await api.pulls.pullHead(7)).toMatchObject({ deleted: false });
  });

  it('says a deleted fork is gone (GitHub answers `head.repo: null`), and names it in words only', async () => {
    const { api } = await apiFor({
      issues: [
        {
          number: 7,
          title: 'Orphaned',
          user: 'contributor',
          pull_request: { head: 'patch-1', fork: { owner: 'contributor', deleted: true } },
        },
      ],
    });
    expect(await api.pulls.pullHead(7)).toMatchObject({
      repo: '(deleted fork)',
      deleted: true,
      ref: 'patch-1',
      sameRepo: false,
    });
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

describe('openPull', () => {
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
      issues: [{ number: 1, title: 'Tidy up' }, openOnAgentX('Opened by hand', 'My words', 'maintainer')],
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
        openOnAgentX('Earlier run', 'old', 'agent-machine-user'),
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
