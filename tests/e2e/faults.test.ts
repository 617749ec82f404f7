// Faults injected into a whole run of dist/index.js: the model API and GitHub fail now and then, git pushes
// are refused. Each run still ends where it should, and nothing the agent did is lost.
import { chmod, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GitHubEmulator } from '../support/github/emulator.js';
import { secondaryRateLimit } from '../support/github/emulator.js';
import {
  apiError,
  dropConnection,
  reply,
  text,
  toolUse,
  type ScriptStep,
} from '../support/anthropic/server.js';
import { planAt } from '../support/anthropic/scenarios.js';
import { createWorld, KEY, originGit, useWorldsPerTest, type World } from './setup.js';

let world: World | undefined;
const worlds = useWorldsPerTest();

const ITEMS = [
  { text: 'Write NOTES.md', activeForm: 'Writing NOTES.md' },
  { text: 'Check NOTES.md', activeForm: 'Checking NOTES.md' },
];
const BRANCH = 'agent/issue-1-4242';
// The SDK honours `retry-after-ms`; without it each retry waits 0.5–8 s.
const SOON = { 'retry-after-ms': '20' };

/** A short complete session: plan, write a file, check it, finish. `faults` go before the numbered turns. */
function session(faults: Record<number, ScriptStep> = {}): ScriptStep[] {
  const turns: ScriptStep[] = [
    reply(planAt(0, ITEMS)),
    reply(toolUse('write_file', { path: 'NOTES.md', content: 'notes\n' })),
    reply(planAt(1, ITEMS)),
    reply(toolUse('bash', { command: 'cat NOTES.md' })),
    reply(planAt(2, ITEMS)),
    reply(text('Wrote NOTES.md and checked it.')),
  ];
  return turns.flatMap((turn, index) => (faults[index] ? [faults[index], turn] : [turn]));
}

/** The run finished, opened its PR from `branch` and wrote a final comment with every item done. */
async function expectDelivered(w: World, run: Awaited<ReturnType<World['trigger']>>, branch = BRANCH) {
  expect(run.code).toBe(0);
  expect(run.outputs.status).toBe('completed');
  expect(run.outputs.branch).toBe(branch);
  expect(w.github.state.pulls).toEqual([expect.objectContaining({ head: branch, state: 'open' })]);
  expect(await originGit(w, 'show', `${branch}:NOTES.md`)).toBe('notes');
  const comments = w.botComments();
  expect(comments).toHaveLength(1);
  expect(comments[0]!.body).toContain('✅ todo-agent finished');
  expect(comments[0]!.body.match(/^- \[x\] /gm)).toHaveLength(2);
  expect(w.model.violations).toEqual([]);
}

/** Every request the model server saw after a fault repeats the request the fault answered. */
function expectRetriedAsSent(w: World, faultIndexes: number[]) {
  for (const index of faultIndexes) {
    expect(w.model.requests[index + 1]!.body.messages).toEqual(w.model.requests[index]!.body.messages);
  }
}

/** A comment as a reader sees it: Markdown escapes and HTML entities undone. */
const visible = (body: string) =>
  body.replace(/\\(.)/g, '$1').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');

const writeOutcomes = (github: GitHubEmulator) =>
  github.writes().map((call) => `${call.method} ${call.path.replace(/\/\d+/g, '/N')} ${call.status}`);

describe('Anthropic faults are retried and the run completes', () => {
  it('429 rate_limit_error, then 500 api_error', async () => {
    world = await worlds.create(
      session({
        0: apiError(429, 'rate_limit_error', 'Number of request tokens has exceeded your rate limit', SOON),
        3: apiError(500, 'api_error', 'Internal server error', SOON),
      }),
    );
    const run = await world.trigger('/agent write notes');
    await expectDelivered(world, run);
    expect(world.model.requests).toHaveLength(8);
    expectRetriedAsSent(world, [0, 4]);
  });

  it('529 overloaded_error, then a connection dropped before any answer', async () => {
    world = await worlds.create(
      session({ 1: apiError(529, 'overloaded_error', 'Overloaded', SOON), 4: dropConnection() }),
    );
    const run = await world.trigger('/agent write notes');
    await expectDelivered(world, run);
    expect(world.model.requests).toHaveLength(8);
    expectRetriedAsSent(world, [1, 5]);
  });

  it('a stream that breaks mid-way with an overloaded_error event is sent again', async () => {
    const broken: ScriptStep = {
      ...reply(text('Half an'), text('answer')),
      streamError: { type: 'overloaded_error', message: 'Overloaded' },
    };
    world = await worlds.create(session({ 2: broken }));
    const run = await world.trigger('/agent write notes');
    await expectDelivered(world, run);
    expect(world.model.requests).toHaveLength(7);
    expectRetriedAsSent(world, [2]);
  });
});

describe('Anthropic refusals fail fast, with one request and a readable comment', () => {
  it.each([
    [
      400,
      'invalid_request_error',
      'max_tokens: 100000 > 64000, the maximum for this model',
      'the Anthropic API answered 400',
    ],
    [401, 'authentication_error', 'invalid x-api-key', 'the Anthropic API refused the credentials (401'],
    [
      403,
      'permission_error',
      'Your API key does not have access to this model',
      'the Anthropic API refused the credentials (403',
    ],
  ])('%i %s', async (status, type, message, sentence) => {
    world = await worlds.create([apiError(status, type, message), reply(text('never'))]);
    const run = await world.trigger('/agent write notes');
    expect(run.code).toBe(1);
    expect(run.outputs.status).toBe('failed');
    expect(world.model.requests).toHaveLength(1);
    const final = visible(world.botComments()[0]!.body);
    expect(final).toContain('❌ todo-agent failed');
    expect(final).toContain(sentence);
    expect(final).toContain(message.split(',')[0]);
    expect(final).not.toMatch(/\n\s+at |req_\w+|request_id/);
    expect(final).not.toContain(KEY);
    const errors = run.stdout.split('\n').filter((line) => line.startsWith('::error::'));
    expect(errors).toEqual([expect.stringContaining(`::error::todo-agent failed: ${sentence}`)]);
  });
});

describe('GitHub faults', () => {
  it('retries a 5xx on a comment edit and on a reaction (plugin-retry)', async () => {
    // A model slow enough for the list to be edited while it works.
    world = await worlds.create(session(), { latencyMs: 700 });
    world.github.failNext(
      { method: 'PATCH', path: /\/issues\/comments\/\d+$/ },
      { status: 502, body: { message: 'Bad gateway' } },
    );
    world.github.failNext(
      { method: 'POST', path: /\/reactions$/ },
      { status: 500, body: { message: 'Server error' } },
    );
    const run = await world.trigger('/agent write notes');
    await expectDelivered(world, run);
    const writes = writeOutcomes(world.github);
    expect(writes.slice(0, 2)).toEqual([
      'POST /repos/octo-org/hello-world/issues/comments/N/reactions 500',
      'POST /repos/octo-org/hello-world/issues/comments/N/reactions 201',
    ]);
    const patches = world.github.writes().filter((call) => call.method === 'PATCH');
    expect(patches[0]!.status).toBe(502);
    expect(patches[1]!.status).toBe(200);
    expect(patches[1]!.body).toEqual(patches[0]!.body); // the same edit, sent again
    const trigger = [...world.github.state.comments.values()].find((c) => c.user === 'maintainer')!;
    expect(trigger.reactions).toEqual(['eyes', 'rocket']);
    expect(world.github.violations).toEqual([]);
  });

  it('waits out a secondary rate limit (403 + retry-after) on the first comment (plugin-throttling)', async () => {
    world = await worlds.create(session());
    world.github.failNext({ method: 'POST', path: /\/issues\/1\/comments$/ }, secondaryRateLimit(1));
    const run = await world.trigger('/agent write notes');
    await expectDelivered(world, run);
    const creates = world.github
      .writes()
      .filter((call) => call.method === 'POST' && call.path.endsWith('/issues/1/comments'));
    expect(creates.map((call) => call.status)).toEqual([403, 201]);
    expect(run.stdout).toMatch(/::warning::GitHub secondary rate limit on POST .*; retrying in 1 s/);
    expect(world.github.violations).toEqual([]);
  });

  it('never stops for comment edits that keep failing; the next write carries the latest state', async () => {
    // A model slow enough for the list to be written while it works (a fast one is done before the first edit).
    world = await worlds.create(session(), { latencyMs: 700 });
    // A 403 that neither plugin retries (it does not name a secondary rate limit) stands for an edit whose
    // retries are all used up; two in a row.
    world.github.failNext(
      { method: 'PATCH', path: /\/issues\/comments\/\d+$/ },
      {
        status: 403,
        body: { message: 'You have triggered an abuse detection mechanism. Please wait a few minutes.' },
      },
      2,
    );
    const run = await world.trigger('/agent write notes');
    await expectDelivered(world, run);
    expect(world.model.requests).toHaveLength(6); // the loop went on while the edits failed
    const patches = world.github
      .writes()
      .filter((call) => call.method === 'PATCH' && call.path.includes('/issues/comments/'));
    expect(patches.slice(0, 2).map((call) => call.status)).toEqual([403, 403]);
    const landed = patches
      .filter((call) => call.status === 200)
      .map((call) => (call.body as { body: string }).body);
    expect(landed.at(-1)).toBe(world.botComments()[0]!.body);
    expect(run.stdout.match(/::warning::could not write the checklist comment/g)).toHaveLength(2);
  });

  it('opens no pull request when GitHub refuses it, but still names the pushed branch', async () => {
    world = await worlds.create(session());
    world.github.failNext(
      { method: 'POST', path: /\/pulls$/ },
      {
        status: 422,
        body: {
          message: 'Validation Failed',
          errors: [{ resource: 'PullRequest', code: 'custom', message: 'base invalid' }],
        },
      },
    );
    const run = await world.trigger('/agent write notes');
    expect(run.outputs.status).toBe('completed');
    expect(run.outputs.branch).toBe(BRANCH);
    expect(run.outputs.pr_url).toBe('');
    expect(await originGit(world, 'show', `${BRANCH}:NOTES.md`)).toBe('notes');
    const final = visible(world.botComments()[0]!.body);
    expect(final).toContain('The pull request could not be opened (422: Validation Failed');
    expect(final).toContain(`[\`${BRANCH}\`](https://github.com/octo-org/hello-world/tree/${BRANCH})`);
  });
});

describe('a checklist comment deleted in the middle of the run', () => {
  let deleted: World;
  let run: Awaited<ReturnType<World['trigger']>>;

  beforeAll(async () => {
    // A maintainer deletes the checklist as soon as it exists while the model works (it is created beside
    // the first model request): every later edit gets a 404.
    let gone = false;
    const script = session().map((step): ScriptStep => {
      const turn = step as Exclude<ScriptStep, (...args: never[]) => unknown>;
      return (_request, _server) => {
        if (!gone && deleted.botComments().length > 0) {
          for (const comment of deleted.botComments()) deleted.github.state.comments.delete(comment.id);
          gone = true;
        }
        return turn;
      };
    });
    deleted = await createWorld(script);
    run = await deleted.trigger('/agent write notes');
  });
  afterAll(async () => {
    await deleted?.close();
  });

  it('does not stop the run: the work is pushed and the pull request opened', async () => {
    expect(run.outputs.status).toBe('completed');
    expect(deleted.github.state.pulls).toEqual([expect.objectContaining({ head: BRANCH })]);
    expect(await originGit(deleted, 'show', `${BRANCH}:NOTES.md`)).toBe('notes');
    expect(deleted.github.writes().some((call) => call.method === 'PATCH' && call.status === 404)).toBe(true);
  });

  // After a 404 on an edit, the next write creates a new checklist comment, so the final state lands.
  it('writes the final state to a new comment', () => {
    expect(deleted.botComments().map((comment) => comment.body)).toEqual([
      expect.stringContaining('✅ todo-agent finished'),
    ]);
  });
});

describe('git push faults', () => {
  it('moves to a fresh branch name when the branch exists with other history, and the PR uses it', async () => {
    world = await worlds.create(session());
    // Someone else's work already sits on the branch name this run would use.
    const tree = await originGit(world, 'hash-object', '-t', 'tree', '-w', '/dev/null');
    const unrelated = await originGit(world, 'commit-tree', tree, '-m', 'Unrelated work');
    await originGit(world, 'update-ref', `refs/heads/${BRANCH}`, unrelated);

    const run = await world.trigger('/agent write notes');
    await expectDelivered(world, run, `${BRANCH}-2`);
    expect(world.github.state.pulls[0]!.head).toBe(`${BRANCH}-2`);
    expect(run.outputs.pr_url).toBe(world.github.state.pulls[0]!.html_url);
    expect(await originGit(world, 'rev-parse', BRANCH)).toBe(unrelated); // the other work is untouched
    expect(world.botComments()[0]!.body).toContain(`${BRANCH}-2`);
  });

  it('pushes again under the same name after a push the server refused once', async () => {
    world = await worlds.create(session());
    // A server-side hiccup: the origin refuses the first push it receives, then accepts.
    const hook = join(world.sandbox.origin, 'hooks', 'pre-receive');
    await writeFile(
      hook,
      '#!/bin/sh\nif [ ! -e refused-once ]; then touch refused-once; echo "simulated outage" >&2; exit 1; fi\n',
    );
    await chmod(hook, 0o755);
    const run = await world.trigger('/agent write notes');
    await expectDelivered(world, run);
    expect(world.github.state.pulls[0]!.head).toBe(BRANCH);
  });

  it('reuses the pull request that is already open for the branch', async () => {
    world = await worlds.create(session());
    // The branch exists at main (so the push fast-forwards) and a maintainer already opened a PR from it.
    await originGit(world, 'update-ref', `refs/heads/${BRANCH}`, 'main');
    seedPull(world.github, { number: 2, head: BRANCH, user: 'maintainer', body: 'Opened by hand.' });

    const run = await world.trigger('/agent write notes');
    expect(run.outputs.status).toBe('completed');
    expect(run.outputs.branch).toBe(BRANCH);
    const pulls = world.github.state.pulls;
    expect(pulls).toHaveLength(1);
    expect(run.outputs.pr_url).toBe(pulls[0]!.html_url);
    expect(pulls[0]!.body).toBe('Opened by hand.'); // a description a person wrote is left alone
    expect(world.botComments()[0]!.body).toContain('PR #2');
    // The create goes first (a fresh branch, the usual case, costs one request) and GitHub refuses it.
    const creates = world.github
      .writes()
      .filter((call) => call.method === 'POST' && call.path.endsWith('/pulls'));
    expect(creates.map((call) => call.status)).toEqual([422]);
    expect(await originGit(world, 'show', `${BRANCH}:NOTES.md`)).toBe('notes');
    expect(world.github.violations).toEqual([]);
  });
});

describe('a pull request the bot opened earlier', () => {
  it('is reused, with its description brought up to date', async () => {
    world = await worlds.create(session());
    await originGit(world, 'update-ref', `refs/heads/${BRANCH}`, 'main');
    seedPull(world.github, {
      number: 2,
      head: BRANCH,
      user: 'github-actions[bot]',
      body: 'Old description.',
    });
    const run = await world.trigger('/agent write notes');
    expect(run.outputs.status).toBe('completed');
    const pulls = world.github.state.pulls;
    expect(pulls).toHaveLength(1);
    expect(pulls[0]!.body.startsWith('Closes #1')).toBe(true);
    expect(world.github.violations).toEqual([]);
  });
});

/** An open pull request from `head` that someone opened before the run, straight into the emulator's state. */
function seedPull(
  github: GitHubEmulator,
  pull: { number: number; head: string; user: string; body: string },
) {
  const now = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
  const sha = '0'.repeat(40);
  github.state.issues.set(pull.number, {
    number: pull.number,
    title: 'Notes',
    body: pull.body,
    state: 'open',
    locked: false,
    user: pull.user,
    pull_request: { head: pull.head },
    reactions: [],
    created_at: now,
    updated_at: now,
  });
  github.state.pulls.push({
    number: pull.number,
    title: 'Notes',
    body: pull.body,
    head: pull.head,
    base: 'main',
    state: 'open',
    html_url: `https://github.com/octo-org/hello-world/pull/${pull.number}`,
    draft: false,
    user: pull.user,
    head_sha: sha,
    base_sha: sha,
    created_at: now,
  });
}
