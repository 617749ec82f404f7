import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { getOctokit } from '@actions/github';
import { afterEach, describe, expect, it } from 'vitest';
import { startGitHubEmulator } from './emulator.js';
import type { GitHubEmulator } from './emulator.js';
import { expectHonest } from './honest.js';

const TOKEN = 'ghs_test_token';
const owner = 'octo-org';
const repo = 'hello-world';
const hunk = '@@ -1,3 +1,4 @@\n def greet():\n-    print("hi")\n+    print("hello")';

let emulator: GitHubEmulator | undefined;

/** Issue 1, the agent's pull request 2 and someone else's pull request 3. */
async function start(): Promise<GitHubEmulator> {
  emulator = await startGitHubEmulator({
    token: TOKEN,
    permissions: { maintainer: 'write' },
    issues: [
      { number: 1, title: 'Tidy up hello.py', user: 'maintainer' },
      {
        number: 2,
        title: 'Tidy up',
        user: 'github-actions[bot]',
        pull_request: { head: 'todo-agent/issue-1' },
      },
      { number: 3, title: 'Other', user: 'visitor', pull_request: { head: 'visitor/patch' } },
    ],
  });
  return emulator;
}

afterEach(async () => {
  await emulator?.close();
  emulator = undefined;
});

type Octokit = ReturnType<typeof getOctokit>;

/** The action's call: a reply in the thread of `comment_id` on `pull_number`. */
const replyTo = (octokit: Octokit, pull_number: number, comment_id: number, body: string) =>
  octokit.rest.pulls.createReplyForReviewComment({ owner, repo, pull_number, comment_id, body });

const lineComment = (body: string, line = 2) => ({ path: 'hello.py', line, diffHunk: hunk, body });

describe('GitHub emulator: pull request reviews and review comments', () => {
  it('lists review comments a page at a time, and reviews with their comments', async () => {
    const emu = await start();
    const review = emu.addReview(2, 'maintainer', { body: '/agent use pathlib', state: 'CHANGES_REQUESTED' });
    const inReview = [1, 2, 3].map((n) =>
      emu.addReviewComment(2, 'maintainer', { ...lineComment(`in review ${n}`, n), reviewId: review.id }),
    );
    const lone = emu.addReviewComment(2, 'maintainer', lineComment('/agent rename greet'));
    const reply = emu.addReviewComment(2, 'visitor', { body: 'agreed', inReplyTo: lone.id });
    emu.addReviewComment(3, 'visitor', lineComment('elsewhere'));
    expect(reply).toMatchObject({ path: 'hello.py', line: 2, diff_hunk: hunk, in_reply_to_id: lone.id });

    const octokit = getOctokit(TOKEN, { baseUrl: emu.url });
    const pages = { owner, repo, pull_number: 2, per_page: 2 };
    const first = await octokit.rest.pulls.listReviewComments(pages);
    expect(first.data.map((c) => c.body)).toEqual(['in review 1', 'in review 2']);
    expect(first.headers.link).toContain('rel="next"');
    const all = await octokit.paginate(octokit.rest.pulls.listReviewComments, pages);
    expect(all.map((c) => c.id)).toEqual([...inReview.map((c) => c.id), lone.id, reply.id]);
    expect(all.at(-1)).toMatchObject({
      in_reply_to_id: lone.id,
      user: { login: 'visitor' },
      author_association: 'NONE',
    });
    expect(all[3]).toMatchObject({ author_association: 'COLLABORATOR', side: 'RIGHT', subject_type: 'line' });
    expect(all[3]).not.toHaveProperty('in_reply_to_id');

    const { data: one } = await octokit.rest.pulls.getReviewComment({ owner, repo, comment_id: lone.id });
    expect(one).toMatchObject({ body: '/agent rename greet', diff_hunk: hunk, line: 2, path: 'hello.py' });
    expect(one.html_url).toBe(`https://github.com/${owner}/${repo}/pull/2#discussion_r${lone.id}`);

    const { data: reviews } = await octokit.rest.pulls.listReviews({ owner, repo, pull_number: 2 });
    // The lone comment and the reply each came with a one-comment review, as GitHub makes them.
    expect(reviews.map((r) => [r.state, r.body, r.user?.login])).toEqual([
      ['CHANGES_REQUESTED', '/agent use pathlib', 'maintainer'],
      ['COMMENTED', '', 'maintainer'],
      ['COMMENTED', '', 'visitor'],
    ]);
    expect(reviews[0]).not.toHaveProperty('body_html');
    // With the media type GitHub documents for reviews and review comments (vnd.github-commitcomment.*),
    // bodies come rendered too; the issues' vnd.github.v3.full+json is not documented here: the raw body only.
    const reviewsAs = async (accept: string) =>
      (await octokit.rest.pulls.listReviews({ owner, repo, pull_number: 2, headers: { accept } })).data[0];
    const commentsAs = async (accept: string) =>
      (await octokit.rest.pulls.listReviewComments({ owner, repo, pull_number: 2, headers: { accept } }))
        .data[0];
    expect(await reviewsAs('application/vnd.github-commitcomment.full+json')).toMatchObject({
      body_html: '<p dir="auto">/agent use pathlib</p>',
      body_text: '/agent use pathlib',
    });
    const html = await reviewsAs('application/vnd.github-commitcomment.html+json');
    expect(html).toHaveProperty('body_html', '<p dir="auto">/agent use pathlib</p>');
    expect(html).not.toHaveProperty('body_text');
    const issueType = await reviewsAs('application/vnd.github.v3.full+json');
    expect(issueType).not.toHaveProperty('body_html');
    expect(issueType).not.toHaveProperty('body_text');
    expect(await commentsAs('application/vnd.github-commitcomment.full+json')).toHaveProperty('body_html');
    expect(await commentsAs('application/vnd.github.v3.full+json')).not.toHaveProperty('body_html');
    const { data: ofReview } = await octokit.rest.pulls.listCommentsForReview({
      owner,
      repo,
      pull_number: 2,
      review_id: review.id,
    });
    expect(ofReview.map((c) => c.body)).toEqual(['in review 1', 'in review 2', 'in review 3']);
    await expect(
      octokit.rest.pulls.listCommentsForReview({ owner, repo, pull_number: 3, review_id: review.id }),
    ).rejects.toMatchObject({ status: 404 });
    const { data: pull } = await octokit.rest.pulls.get({ owner, repo, pull_number: 2 });
    expect(pull.review_comments).toBe(5);
    expectHonest(emu);
  });

  it('lands a reply in its thread, as the token user, and answers 404 for an unknown comment', async () => {
    const emu = await start();
    const thread = emu.addReviewComment(2, 'maintainer', lineComment('/agent rename greet to welcome'));
    const elsewhere = emu.addReviewComment(3, 'visitor', lineComment('elsewhere'));
    const octokit = getOctokit(TOKEN, { baseUrl: emu.url });
    const created = await replyTo(octokit, 2, thread.id, 'Renamed in abc123.');
    expect(created.status).toBe(201);
    expect(created.data).toMatchObject({
      in_reply_to_id: thread.id,
      path: 'hello.py',
      line: 2,
      diff_hunk: hunk,
      body: 'Renamed in abc123.',
      user: { login: 'github-actions[bot]', type: 'Bot' },
    });
    expect(created.headers.location).toBe(created.data.url);
    const saved = emu.state.reviewComments.get(created.data.id);
    expect(saved).toMatchObject({ in_reply_to_id: thread.id, user: 'github-actions[bot]', pull_number: 2 });
    expect(emu.state.reviews.get(created.data.pull_request_review_id!)).toMatchObject({
      state: 'COMMENTED',
      user: 'github-actions[bot]',
    });
    const { data: listed } = await octokit.rest.pulls.listReviewComments({ owner, repo, pull_number: 2 });
    expect(listed.map((c) => [c.id, c.in_reply_to_id])).toEqual([
      [thread.id, undefined],
      [created.data.id, thread.id],
    ]);

    for (const [pull_number, comment_id] of [
      [2, 987_654],
      [2, elsewhere.id],
      [99, thread.id],
    ] as const) {
      await expect(replyTo(octokit, pull_number, comment_id, 'x')).rejects.toMatchObject({ status: 404 });
    }
    await expect(replyTo(octokit, 2, thread.id, ' ')).rejects.toMatchObject({
      status: 422,
      response: { data: { errors: [{ code: 'missing_field' }] } },
    });
    expect(emu.state.reviewComments.size).toBe(3);
    expectHonest(emu);
  });

  it('refuses a reply to a reply, which GitHub does not support, and records it', async () => {
    const emu = await start();
    const thread = emu.addReviewComment(2, 'maintainer', lineComment('/agent rename greet'));
    const reply = emu.addReviewComment(2, 'visitor', { body: 'yes please', inReplyTo: thread.id });
    const octokit = getOctokit(TOKEN, { baseUrl: emu.url });
    await expect(replyTo(octokit, 2, reply.id, 'Done.')).rejects.toMatchObject({ status: 422 });
    expect(emu.violations).toEqual([
      `reply to a reply: review comment ${reply.id} is not a thread's first comment`,
    ]);
    expect(emu.state.reviewComments.size).toBe(2);
    expect(() => emu.addReviewComment(2, 'visitor', { body: 'x', inReplyTo: reply.id })).toThrow(
      /no thread's first comment/,
    );
  });

  it('adds reactions to a review comment, answering 200 when the same one exists', async () => {
    const emu = await start();
    const thread = emu.addReviewComment(2, 'maintainer', lineComment('/agent rename greet'));
    const octokit = getOctokit(TOKEN, { baseUrl: emu.url });
    const react = () =>
      octokit.rest.reactions.createForPullRequestReviewComment({
        owner,
        repo,
        comment_id: thread.id,
        content: 'eyes',
      });
    const first = await react();
    expect(first.status).toBe(201);
    expect(first.data).toMatchObject({ content: 'eyes', user: { login: 'github-actions[bot]' } });
    const again = await react();
    expect(again.status).toBe(200);
    expect(again.data.id).toBe(first.data.id);
    expect(emu.state.reviewComments.get(thread.id)?.reactions).toEqual(['eyes']);
    const { data } = await octokit.rest.pulls.getReviewComment({ owner, repo, comment_id: thread.id });
    expect(data.reactions).toMatchObject({ total_count: 1, eyes: 1, rocket: 0 });
    await expect(
      octokit.rest.reactions.createForPullRequestReviewComment({
        owner,
        repo,
        comment_id: 123,
        content: 'eyes',
      }),
    ).rejects.toMatchObject({ status: 404 });
    expectHonest(emu);
  });

  it('records requests GitHub would reject, and changes nothing for them', async () => {
    const emu = await start();
    const thread = emu.addReviewComment(2, 'maintainer', lineComment('/agent rename greet'));
    const octokit = getOctokit(TOKEN, { baseUrl: emu.url });
    const noBody = octokit.request(
      'POST /repos/{owner}/{repo}/pulls/{pull_number}/comments/{comment_id}/replies',
      {
        owner,
        repo,
        pull_number: 2,
        comment_id: thread.id,
        text: 'wrong field',
      } as never,
    );
    await expect(noBody).rejects.toMatchObject({ status: 422 });
    const badReaction = octokit.request('POST /repos/{owner}/{repo}/pulls/comments/{comment_id}/reactions', {
      owner,
      repo,
      comment_id: thread.id,
      content: 'smile' as 'eyes', // deliberately outside the enum
    });
    await expect(badReaction).rejects.toMatchObject({ status: 422 });
    await expect(
      octokit.request('GET /repos/{owner}/{repo}/pulls/{pull_number}/comments', {
        owner,
        repo,
        pull_number: 2,
        direction: 'sideways' as 'asc',
      }),
    ).rejects.toMatchObject({ status: 422 });
    expect(emu.violations).toEqual([
      expect.stringMatching(
        /^POST \/repos\/octo-org\/hello-world\/pulls\/2\/comments\/\d+\/replies: body must have required property 'body'/,
      ),
      expect.stringMatching(
        /^POST \/repos\/octo-org\/hello-world\/pulls\/comments\/\d+\/reactions: body\/content must be equal/,
      ),
      expect.stringMatching(/^GET \/repos\/octo-org\/hello-world\/pulls\/2\/comments: .*direction/),
    ]);
    expect(emu.state.reviewComments.size).toBe(1);
    expect(emu.state.reviewComments.get(thread.id)?.reactions).toEqual([]);
  });
});

describe('GitHub emulator: a fork’s pull request and a review with suggestions', () => {
  /** A bare origin: main with hello.py, and a fork's head served only as refs/pull/1/head. */
  let root: string | undefined;
  afterEach(() => {
    if (root) rmSync(root, { recursive: true, force: true });
    root = undefined;
  });

  function forkOrigin(): { dir: string; head: string } {
    root = mkdtempSync(path.join(tmpdir(), 'emu-fork-'));
    const work = path.join(root, 'work');
    const dir = path.join(root, 'origin.git');
    const git = (...args: string[]) =>
      execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], {
        encoding: 'utf8',
      }).trim();
    git('init', '-q', '--bare', '-b', 'main', dir);
    git('init', '-q', '-b', 'main', work);
    writeFileSync(
      path.join(work, 'hello.py'),
      Array.from({ length: 20 }, (_, k) => `line ${k + 1}\n`).join(''),
    );
    git('-C', work, 'add', '.');
    git('-C', work, 'commit', '-q', '-m', 'base');
    git('-C', work, 'push', '-q', dir, 'main');
    writeFileSync(
      path.join(work, 'hello.py'),
      Array.from({ length: 20 }, (_, k) => `line ${k === 9 ? 'ten' : k + 1}\n`).join(''),
    );
    git('-C', work, 'commit', '-q', '-am', 'contributor');
    git('-C', work, 'push', '-q', dir, 'HEAD:refs/pull/1/head');
    return { dir, head: git('-C', work, 'rev-parse', 'HEAD') };
  }

  it('shows the head in the fork, and takes review comments only on lines of one hunk of the diff', async () => {
    const { dir, head } = forkOrigin();
    emulator = await startGitHubEmulator({
      token: TOKEN,
      remoteDir: dir,
      issues: [
        {
          number: 1,
          title: 'Ten',
          user: 'contributor',
          pull_request: { head: 'patch-1', fork: { owner: 'contributor', maintainerCanModify: true } },
        },
      ],
    });
    const octokit = getOctokit(TOKEN, { baseUrl: emulator.url });
    const { data: pull } = await octokit.rest.pulls.get({ owner, repo, pull_number: 1 });
    expect(pull.head).toMatchObject({
      label: 'contributor:patch-1',
      repo: { full_name: 'contributor/hello-world', fork: true },
    });
    expect(pull.maintainer_can_modify).toBe(true);
    const files = await octokit.rest.pulls.listFiles({ owner, repo, pull_number: 1 });
    expect(files.data.map((f) => f.filename)).toEqual(['hello.py']);

    const review = (comments: Array<{ path: string; line: number; start_line?: number; body: string }>) =>
      octokit.rest.pulls.createReview({
        owner,
        repo,
        pull_number: 1,
        commit_id: head,
        event: 'COMMENT',
        body: 'See the suggestions.',
        comments,
      });
    // Line 10 changed: lines 7 to 13 are the hunk (three lines of context).
    const ok = await review([
      { path: 'hello.py', start_line: 9, line: 11, body: '```suggestion\nnine\nTEN\neleven\n```' },
    ]);
    expect(ok.data).toMatchObject({ state: 'COMMENTED', commit_id: head, body: 'See the suggestions.' });
    const stored = [...emulator.state.reviewComments.values()];
    expect(stored).toMatchObject([
      { path: 'hello.py', line: 11, start_line: 9, pull_request_review_id: ok.data.id },
    ]);
    const listed = await octokit.rest.pulls.listReviewComments({ owner, repo, pull_number: 1 });
    expect(listed.data[0]).toMatchObject({ start_line: 9, line: 11, side: 'RIGHT', start_side: 'RIGHT' });

    for (const [comment, message] of [
      [{ path: 'hello.py', line: 2, body: 'x' }, 'line must be part of the diff'],
      [{ path: 'other.py', line: 10, body: 'x' }, 'line must be part of the diff'],
      [{ path: 'hello.py', start_line: 3, line: 10, body: 'x' }, 'start_line must be part of the same hunk'],
    ] as const) {
      const refused = await review([comment]).then(
        () => undefined,
        (error: { status: number; message: string }) => error,
      );
      expect(refused).toMatchObject({ status: 422, message: expect.stringContaining(message) });
    }
    expect(emulator.state.reviews.size).toBe(1);
    expect(emulator.violations).toEqual([]);
  });
});
