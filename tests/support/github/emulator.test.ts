import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getOctokit } from '@actions/github';
import { retry } from '@octokit/plugin-retry';
import { throttling } from '@octokit/plugin-throttling';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { secondaryRateLimit, startGitHubEmulator } from './emulator.js';
import type { EmulatorOptions, GitHubEmulator } from './emulator.js';
import { TEST_TOKEN, useEmulatorPerTest } from './per-test.js';
import { expectHonest } from './honest.js';

const TOKEN = 'ghs_test_token';
const owner = 'octo-org';
const repo = 'hello-world';

// A real bare "origin" with `main`, a branch one commit ahead (`agent/feature`) and one that adds
// nothing (`stale`), built once for the file with a throwaway git identity.
let tmp: string;
let remoteDir: string;
let featureSha: string;

function git(cwd: string, ...args: string[]): string {
  const env = {
    ...process.env,
    GIT_AUTHOR_NAME: 'Test',
    GIT_AUTHOR_EMAIL: 'test@example.invalid',
    GIT_COMMITTER_NAME: 'Test',
    GIT_COMMITTER_EMAIL: 'test@example.invalid',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
  };
  return execFileSync('git', args, { cwd, env, encoding: 'utf8' }).trim();
}

beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), 'gh-emulator-'));
  remoteDir = join(tmp, 'origin.git');
  const work = join(tmp, 'work');
  git(tmp, 'init', '--quiet', '--bare', '--initial-branch=main', remoteDir);
  git(tmp, 'init', '--quiet', '--initial-branch=main', work);
  writeFileSync(join(work, 'README.md'), '# hello\n');
  git(work, 'add', 'README.md');
  git(work, 'commit', '--quiet', '-m', 'initial');
  git(work, 'push', '--quiet', remoteDir, 'main');
  git(work, 'push', '--quiet', remoteDir, 'main:refs/heads/stale');
  git(work, 'checkout', '--quiet', '-b', 'agent/feature');
  writeFileSync(join(work, 'feature.txt'), 'new\n');
  git(work, 'add', 'feature.txt');
  git(work, 'commit', '--quiet', '-m', 'feature');
  git(work, 'push', '--quiet', remoteDir, 'agent/feature');
  featureSha = git(work, 'rev-parse', 'HEAD');
});

afterAll(() => rmSync(tmp, { recursive: true, force: true }));

let emulator: GitHubEmulator | undefined;

async function start(options: EmulatorOptions = {}): Promise<GitHubEmulator> {
  emulator = await startGitHubEmulator({
    token: TOKEN,
    remoteDir,
    permissions: { maintainer: 'write', boss: 'admin', visitor: 'read' },
    issues: [
      { number: 1, title: 'Add a greeting', body: 'Please', user: 'maintainer' },
      { number: 2, title: 'Old PR', pull_request: { head: 'old/branch' }, state: 'closed' },
    ],
    ...options,
  });
  return emulator;
}

afterEach(async () => {
  await emulator?.close();
  emulator = undefined;
});

describe('GitHub emulator with Octokit', () => {
  it('serves the repository and issues', async () => {
    const emu = await start();
    const octokit = getOctokit(TOKEN, { baseUrl: emu.url });
    const { data: repository } = await octokit.rest.repos.get({ owner, repo });
    expect(repository).toMatchObject({
      full_name: `${owner}/${repo}`,
      default_branch: 'main',
      private: true,
    });
    const { data: issue, headers } = await octokit.rest.issues.get({ owner, repo, issue_number: 1 });
    expect(issue).toMatchObject({
      number: 1,
      title: 'Add a greeting',
      state: 'open',
      user: { login: 'maintainer' },
    });
    expect(issue.pull_request).toBeUndefined();
    expect(headers['content-type']).toBe('application/json; charset=utf-8');
    expect(headers['x-ratelimit-remaining']).toBeDefined();
    const { data: pr } = await octokit.rest.issues.get({ owner, repo, issue_number: 2 });
    expect(pr.pull_request?.html_url).toBe(`https://github.com/${owner}/${repo}/pull/2`);
    await expect(octokit.rest.issues.get({ owner, repo, issue_number: 99 })).rejects.toMatchObject({
      status: 404,
    });
    await expect(octokit.rest.repos.get({ owner, repo: 'other' })).rejects.toMatchObject({ status: 404 });
    expectHonest(emu);
  });

  it('creates a comment as the bot, edits it, and keeps every version', async () => {
    const emu = await start();
    const octokit = getOctokit(TOKEN, { baseUrl: emu.url });
    const created = await octokit.rest.issues.createComment({ owner, repo, issue_number: 1, body: 'v1' });
    expect(created.status).toBe(201);
    const id = created.data.id;
    expect(created.data.user).toMatchObject({ login: 'github-actions[bot]', type: 'Bot' });
    expect(created.data.html_url).toBe(`https://github.com/${owner}/${repo}/issues/1#issuecomment-${id}`);
    await octokit.rest.issues.updateComment({ owner, repo, comment_id: id, body: 'v2' });
    const updated = await octokit.rest.issues.updateComment({ owner, repo, comment_id: id, body: 'v3' });
    expect(updated.data.body).toBe('v3');
    const fetched = await octokit.rest.issues.getComment({ owner, repo, comment_id: id });
    expect(fetched.data.body).toBe('v3');
    expect(emu.state.comments.get(id)?.versions).toEqual(['v1', 'v2', 'v3']);
    expect(emu.writes().map((c) => `${c.method} ${c.status}`)).toEqual([
      'POST 201',
      'PATCH 200',
      'PATCH 200',
    ]);
    await expect(
      octokit.rest.issues.updateComment({ owner, repo, comment_id: 12345, body: 'x' }),
    ).rejects.toMatchObject({ status: 404 });
    expectHonest(emu);
  });

  it('refuses blank comments and bodies over 65536 characters, as GitHub does', async () => {
    const emu = await start();
    const octokit = getOctokit(TOKEN, { baseUrl: emu.url });
    const tooLong = 'x'.repeat(65_537);
    await expect(
      octokit.rest.issues.createComment({ owner, repo, issue_number: 1, body: tooLong }),
    ).rejects.toMatchObject({
      status: 422,
      response: { data: { errors: [{ message: 'Body is too long (maximum is 65536 characters)' }] } },
    });
    await expect(
      octokit.rest.issues.createComment({ owner, repo, issue_number: 1, body: '  ' }),
    ).rejects.toMatchObject({ status: 422, response: { data: { errors: [{ code: 'missing_field' }] } } });
    const ok = await octokit.rest.issues.createComment({
      owner,
      repo,
      issue_number: 1,
      body: 'x'.repeat(65_536),
    });
    await expect(
      octokit.rest.issues.updateComment({ owner, repo, comment_id: ok.data.id, body: tooLong }),
    ).rejects.toMatchObject({ status: 422 });
    expect(emu.state.comments.get(ok.data.id)?.versions).toHaveLength(1);
    expectHonest(emu);
  });

  it('pages comment lists with Link headers', async () => {
    const emu = await start();
    for (let i = 1; i <= 5; i++) emu.addComment(1, i === 1 ? 'maintainer' : 'visitor', `comment ${i}`);
    const octokit = getOctokit(TOKEN, { baseUrl: emu.url });
    const pages = { owner, repo, issue_number: 1, per_page: 2 };
    const first = await octokit.rest.issues.listComments(pages);
    expect(first.data.map((c) => c.body)).toEqual(['comment 1', 'comment 2']);
    expect(first.data[0]?.author_association).toBe('COLLABORATOR');
    expect(first.headers.link).toContain('rel="next"');
    const all = await octokit.paginate(octokit.rest.issues.listComments, pages);
    expect(all.map((c) => c.body)).toEqual([1, 2, 3, 4, 5].map((i) => `comment ${i}`));
    expect(emu.calls.filter((c) => c.operationId === 'issues/list-comments')).toHaveLength(4);
    expectHonest(emu);
  });

  it('adds reactions, answering 200 when the same one exists', async () => {
    const emu = await start();
    const octokit = getOctokit(TOKEN, { baseUrl: emu.url });
    const human = emu.addComment(1, 'maintainer', '/agent add a greeting');
    const react = (content: 'eyes' | 'rocket') =>
      octokit.rest.reactions.createForIssueComment({ owner, repo, comment_id: human.id, content });
    const first = await react('eyes');
    expect(first.status).toBe(201);
    expect(first.data).toMatchObject({ content: 'eyes', user: { login: 'github-actions[bot]' } });
    const again = await react('eyes');
    expect(again.status).toBe(200);
    expect(again.data.id).toBe(first.data.id);
    await react('rocket');
    const onIssue = await octokit.rest.reactions.createForIssue({
      owner,
      repo,
      issue_number: 1,
      content: '+1',
    });
    expect(onIssue.status).toBe(201);
    expect(emu.state.comments.get(human.id)?.reactions).toEqual(['eyes', 'rocket']);
    expect(emu.state.issues.get(1)?.reactions).toEqual(['+1']);
    const { data: comment } = await octokit.rest.issues.getComment({ owner, repo, comment_id: human.id });
    expect(comment.reactions).toMatchObject({ total_count: 2, eyes: 1, rocket: 1, heart: 0 });
    expectHonest(emu);
  });

  it('reports collaborator permission for known users and 404 for strangers', async () => {
    const emu = await start();
    const octokit = getOctokit(TOKEN, { baseUrl: emu.url });
    const { data } = await octokit.rest.repos.getCollaboratorPermissionLevel({
      owner,
      repo,
      username: 'maintainer',
    });
    expect(data).toMatchObject({ permission: 'write', user: { login: 'maintainer', type: 'User' } });
    const admin = await octokit.rest.repos.getCollaboratorPermissionLevel({ owner, repo, username: 'boss' });
    expect(admin.data.permission).toBe('admin');
    await expect(
      octokit.rest.repos.getCollaboratorPermissionLevel({ owner, repo, username: 'stranger' }),
    ).rejects.toMatchObject({ status: 404 });
    expectHonest(emu);
  });

  it('opens a pull request only for a head branch that exists in the origin', async () => {
    const emu = await start();
    const octokit = getOctokit(TOKEN, { baseUrl: emu.url });
    const missing = octokit.rest.pulls.create({
      owner,
      repo,
      title: 'T',
      head: 'agent/missing',
      base: 'main',
    });
    await expect(missing).rejects.toMatchObject({
      status: 422,
      response: { data: { message: 'Validation Failed', errors: [{ field: 'head', code: 'invalid' }] } },
    });
    const badBase = octokit.rest.pulls.create({
      owner,
      repo,
      title: 'T',
      head: 'agent/feature',
      base: 'nope',
    });
    await expect(badBase).rejects.toMatchObject({
      status: 422,
      response: { data: { errors: [{ field: 'base' }] } },
    });
    const empty = octokit.rest.pulls.create({ owner, repo, title: 'T', head: 'stale', base: 'main' });
    await expect(empty).rejects.toMatchObject({
      response: { data: { errors: [{ message: 'No commits between main and stale' }] } },
    });

    const created = await octokit.rest.pulls.create({
      owner,
      repo,
      title: 'Add a greeting',
      body: 'Closes #1',
      head: 'agent/feature',
      base: 'main',
    });
    expect(created.status).toBe(201);
    // Issues 1 and 2 exist, so the pull request takes number 3 from the shared sequence.
    expect(created.data).toMatchObject({
      number: 3,
      state: 'open',
      html_url: `https://github.com/${owner}/${repo}/pull/3`,
      head: { ref: 'agent/feature', sha: featureSha },
      base: { ref: 'main' },
      user: { login: 'github-actions[bot]' },
    });
    expect(emu.state.pulls.find((p) => p.number === 3)).toMatchObject({
      head: 'agent/feature',
      base: 'main',
    });
    const asIssue = await octokit.rest.issues.get({ owner, repo, issue_number: 3 });
    expect(asIssue.data.pull_request).toBeDefined();
    const fetched = await octokit.rest.pulls.get({ owner, repo, pull_number: 3 });
    expect(fetched.data.body).toBe('Closes #1');

    const duplicate = octokit.rest.pulls.create({
      owner,
      repo,
      title: 'Again',
      head: 'agent/feature',
      base: 'main',
    });
    await expect(duplicate).rejects.toMatchObject({
      status: 422,
      response: {
        data: { errors: [{ message: `A pull request already exists for ${owner}:agent/feature.` }] },
      },
    });
    expectHonest(emu);
  });

  it('lists pull requests filtered by head and state', async () => {
    const emu = await start();
    const octokit = getOctokit(TOKEN, { baseUrl: emu.url });
    await octokit.rest.pulls.create({ owner, repo, title: 'T', head: 'agent/feature', base: 'main' });
    const byHead = await octokit.rest.pulls.list({ owner, repo, head: `${owner}:agent/feature` });
    expect(byHead.data.map((p) => p.number)).toEqual([3]);
    const otherHead = await octokit.rest.pulls.list({ owner, repo, head: `${owner}:agent/other` });
    expect(otherHead.data).toEqual([]);
    const closed = await octokit.rest.pulls.list({
      owner,
      repo,
      head: `${owner}:agent/feature`,
      state: 'closed',
    });
    expect(closed.data).toEqual([]);
    const all = await octokit.rest.pulls.list({ owner, repo, state: 'all' });
    expect(all.data.map((p) => [p.number, p.head.ref])).toEqual([
      [3, 'agent/feature'],
      [2, 'old/branch'],
    ]);
    expectHonest(emu);
  });

  it('lists the files a pull request changes with their line counts, and keeps the draft flag', async () => {
    const emu = await start();
    const octokit = getOctokit(TOKEN, { baseUrl: emu.url });
    const created = await octokit.rest.pulls.create({
      owner,
      repo,
      title: 'T',
      head: 'agent/feature',
      base: 'main',
      draft: true,
    });
    expect(created.data.draft).toBe(true);
    const { data: files } = await octokit.rest.pulls.listFiles({ owner, repo, pull_number: 3 });
    expect(files).toEqual([
      expect.objectContaining({
        filename: 'feature.txt',
        status: 'added',
        additions: 1,
        deletions: 0,
        changes: 1,
      }),
    ]);
    await expect(octokit.rest.pulls.listFiles({ owner, repo, pull_number: 99 })).rejects.toMatchObject({
      status: 404,
    });
    expectHonest(emu);
  });

  it('answers 401 to a wrong or missing token and records it', async () => {
    const emu = await start();
    const octokit = getOctokit('ghs_wrong', { baseUrl: emu.url });
    await expect(octokit.rest.repos.get({ owner, repo })).rejects.toMatchObject({
      status: 401,
      response: { data: { message: 'Bad credentials' } },
    });
    const anonymous = await fetch(`${emu.url}/repos/${owner}/${repo}`);
    expect(anonymous.status).toBe(401);
    const bearer = await fetch(`${emu.url}/repos/${owner}/${repo}`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(bearer.status).toBe(200);
    expect(emu.violations).toEqual([
      `bad credentials: GET /repos/${owner}/${repo}`,
      `unauthenticated: GET /repos/${owner}/${repo}`,
    ]);
  });

  it('records requests GitHub would reject, and real operations it does not emulate', async () => {
    const emu = await start();
    const octokit = getOctokit(TOKEN, { baseUrl: emu.url });
    const badReaction = octokit.request('POST /repos/{owner}/{repo}/issues/{issue_number}/reactions', {
      owner,
      repo,
      issue_number: 1,
      content: 'smile' as 'eyes', // deliberately outside the enum
    });
    await expect(badReaction).rejects.toMatchObject({ status: 422 });
    await expect(
      octokit.request('GET /repos/{owner}/{repo}/nonsense', { owner, repo }),
    ).rejects.toMatchObject({
      status: 404,
    });
    await expect(octokit.rest.issues.listLabelsForRepo({ owner, repo })).rejects.toMatchObject({
      status: 501,
    });
    const notJson = await fetch(`${emu.url}/repos/${owner}/${repo}/issues/1/comments`, {
      method: 'POST',
      headers: { authorization: `token ${TOKEN}` },
      body: '{oops',
    });
    expect(notJson.status).toBe(400);
    expect(emu.violations).toEqual([
      expect.stringMatching(
        /^POST \/repos\/octo-org\/hello-world\/issues\/1\/reactions: body\/content must be equal/,
      ),
      'GET /repos/octo-org/hello-world/nonsense: unknown route: GET /repos/octo-org/hello-world/nonsense',
      'not emulated: GET /repos/octo-org/hello-world/labels (issues/list-labels-for-repo)',
      'POST /repos/octo-org/hello-world/issues/1/comments: body is not JSON',
    ]);
    expect(emu.state.issues.get(1)?.reactions).toEqual([]);
    expect(emu.calls.map((c) => c.status)).toEqual([422, 404, 501, 400]);
  });

  it('injects failures that the retry and throttling plugins recover from', async () => {
    const emu = await start();
    const secondaryLimits: number[] = [];
    const octokit = getOctokit(
      TOKEN,
      {
        baseUrl: emu.url,
        retry: { retryAfterBaseValue: 10 },
        throttle: {
          retryAfterBaseValue: 10,
          onRateLimit: () => false,
          onSecondaryRateLimit: (retryAfter, _options, _octokit, retryCount) => {
            secondaryLimits.push(retryAfter);
            return retryCount < 1;
          },
        },
      },
      retry,
      throttling,
    );
    emu.failNext(
      { method: 'POST', path: /\/issues\/1\/comments$/ },
      { status: 500, body: { message: 'boom' } },
    );
    const created = await octokit.rest.issues.createComment({ owner, repo, issue_number: 1, body: 'hello' });
    expect(created.status).toBe(201);

    emu.failNext({ method: 'PATCH', path: /\/issues\/comments\/\d+$/ }, secondaryRateLimit(1));
    const edited = await octokit.rest.issues.updateComment({
      owner,
      repo,
      comment_id: created.data.id,
      body: 'bye',
    });
    expect(edited.data.body).toBe('bye');

    expect(emu.writes().map((c) => `${c.method} ${c.status}`)).toEqual([
      'POST 500',
      'POST 201',
      'PATCH 403',
      'PATCH 200',
    ]);
    expect(secondaryLimits).toEqual([1]);
    expect(emu.state.comments.get(created.data.id)?.versions).toEqual(['hello', 'bye']);
    expect(emu.violations).toEqual([]);
  });
});

describe('workflow runs, as the queue reads them', () => {
  const startEmulator = useEmulatorPerTest();

  it('lists the runs by status and reads one, answers as GitHub documents them', async () => {
    const emu = await startEmulator();
    emu.addWorkflowRun({ id: 5, title: 'todo-agent #1' });
    emu.addWorkflowRun({ id: 6, status: 'queued', title: 'todo-agent #2' });
    emu.addWorkflowRun({ id: 4, status: 'completed', conclusion: 'success' });
    const octokit = getOctokit(TEST_TOKEN, { baseUrl: emu.url });
    const repo = { owner: 'octo-org', repo: 'hello-world' };
    const going = await octokit.rest.actions.listWorkflowRunsForRepo({ ...repo, status: 'in_progress' });
    expect(going.data.workflow_runs.map((run) => [run.id, run.display_title])).toEqual([
      [5, 'todo-agent #1'],
    ]);
    const all = await octokit.rest.actions.listWorkflowRunsForRepo(repo);
    expect(all.data.workflow_runs.map((run) => run.id)).toEqual([6, 5, 4]); // newest first
    const one = await octokit.rest.actions.getWorkflowRun({ ...repo, run_id: 4 });
    expect(one.data).toMatchObject({ status: 'completed', conclusion: 'success' });
    await expect(octokit.rest.actions.getWorkflowRun({ ...repo, run_id: 99 })).rejects.toMatchObject({
      status: 404,
    });
    expectHonest(emu);
  });
});
