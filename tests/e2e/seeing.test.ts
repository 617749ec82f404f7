// The agent sees what the maintainer sees, in runs of dist/index.js: the thread's screenshot as an image
// (scaled, from the signed URL the emulator's body_html gives), never an image from another host; a PR's
// failing check and its job log through the github tool; a PNG through read_file; and no other repository.
import { mkdir, writeFile } from 'node:fs/promises';
import { PNG } from 'pngjs';
import { describe, expect, it } from 'vitest';
import { reply, text, toolUse } from '../support/anthropic/server.js';
import { firstMessageText, newestResults } from '../support/requests.js';
import { HELLO_FILES, oneItemScript, pushFeatureBranch } from '../support/anthropic/scenarios.js';
import { pullRequestReviewEvent } from '../support/action-harness.js';
import { validateResponse } from '../support/github/openapi.js';
import { webp } from '../support/webp.js';
import { pngBomb } from '../support/hostile-images.js';
import { memoryProbe } from '../support/memory-probe.js';
import { type World, useWorldsPerTest } from './setup.js';

let world: World | undefined;
const worlds = useWorldsPerTest();

const TASK_ITEM = { text: 'Do the task', activeForm: 'Doing the task' };
const ONE_ITEM = (status: string) => toolUse('todo', { items: [{ ...TASK_ITEM, status }] });

/** A PNG of the given size: a gradient, so scaling has something to average. */
function png(width: number, height: number): Buffer {
  const image = new PNG({ width, height });
  for (let i = 0; i < width * height; i++) {
    image.data[i * 4] = i % 256;
    image.data[i * 4 + 1] = (i >> 8) % 256;
    image.data[i * 4 + 2] = 200;
    image.data[i * 4 + 3] = 255;
  }
  return PNG.sync.write(image);
}

/** A world whose model reads `docs/<name>` (these bytes, in the workspace) with read_file and then sums up. */
async function worldReading(name: string, bytes: Buffer, summary: string): Promise<World> {
  const read = await worlds.create(
    oneItemScript(TASK_ITEM, [toolUse('read_file', { path: `docs/${name}` })], summary),
    { files: { ...HELLO_FILES } },
  );
  await mkdir(`${read.sandbox.workspace}/docs`, { recursive: true });
  await writeFile(`${read.sandbox.workspace}/docs/${name}`, bytes);
  return read;
}

/** A server on another host (another port of 127.0.0.1) that counts what reaches it. */
async function otherHost(): Promise<{ url: string; hits: string[] }> {
  const hits: string[] = [];
  const { url } = await worlds.listen((req, res) => {
    hits.push(req.url ?? '');
    res.writeHead(200, { 'content-type': 'image/png' }).end(png(10, 10));
  });
  return { url, hits };
}

/** No violations, and the answers of the reads this issue added are as GitHub's description documents them. */
function expectHonestReads(github: World['github']): void {
  expect(github.violations).toEqual([]);
  const reads = github.calls.filter(
    (c) =>
      c.operationId &&
      /^(checks\/|repos\/get-combined-status|actions\/(get-job|download-job)|search\/|issues\/(get|list-comments)$|pulls\/list-reviews$)/.test(
        c.operationId,
      ),
  );
  expect(reads.length).toBeGreaterThan(0);
  for (const call of reads)
    expect(
      validateResponse(call.operationId!, call.status, call.response),
      `${call.method} ${call.path}`,
    ).toEqual([]);
}

interface ImageBlock {
  type: 'image';
  source: { type: string; media_type: string; data: string };
}

/** The action's own peak memory the issue allows, whatever a picture holds (its decoder has its own limit). */
const MAX_ACTION_RSS_KB = 300 * 1024;

/** Half a megabyte of interlaced PNG that inflates to 512 MB; its header declares 2,000 × 2,000 px. */
let bombBytes: Promise<Buffer> | undefined;
const bomb = () => (bombBytes ??= pngBomb({ width: 2000, height: 2000, inflatedBytes: 512 * 1024 * 1024 }));
const BOMB_SKIPPED =
  'a damaged PNG image: its pixel data inflates past the 16,003,750 bytes its header declares';

const imagesOf = (content: unknown): ImageBlock[] =>
  (Array.isArray(content) ? (content as Array<{ type: string }>) : []).filter(
    (block): block is ImageBlock => block.type === 'image',
  );

describe('seeing the thread, CI and images', () => {
  it("shows the issue's screenshot as a scaled image and never fetches an image from another host", async () => {
    const camo = await otherHost();
    world = await worlds.create([reply(ONE_ITEM('completed')), reply(text('Looked at it.'))], {
      camoUrl: camo.url,
    });
    const shot = world.github.addAttachment(png(2400, 1200));
    world.github.state.issues.get(1)!.body =
      `The button overlaps the title, see:\n\n![screenshot of the bug](${shot})\n\n![badge](https://example.com/badge.png)`;
    const run = await world.trigger('/agent fix the layout, see the screenshot', {
      env: { GITHUB_SERVER_URL: world.github.url },
    });
    expect(run.outputs.status).toBe('completed');
    const first = world.model.requests[0]!.body.messages[0]!;
    const [image, ...others] = imagesOf(first.content);
    expect(others).toEqual([]);
    expect(image!.source.media_type).toBe('image/png');
    const sent = PNG.sync.read(Buffer.from(image!.source.data, 'base64'));
    expect([sent.width, sent.height]).toEqual([1568, 784]);
    const texts = (first.content as Array<{ text?: string }>).map((b) => b.text ?? '').join('\n');
    expect(texts).toContain(
      'Picture 1: from the issue description by @Codertocat (no write access) (1568×784 px)',
    );
    expect(texts).toContain(
      'Picture 2: from the issue description by @Codertocat (no write access), not shown: on a host other than GitHub, so not fetched',
    );
    // The alt text stays out: the picture is the content.
    expect(texts).not.toContain('screenshot of the bug');
    expect(camo.hits).toEqual([]);
    // The signed URL was fetched without the token (the emulator flags a credential sent to a download).
    expect(world.github.calls.filter((c) => c.path.startsWith('/private-user-images/'))).toHaveLength(1);
    expectHonestReads(world.github);
    expect(world.model.violations).toEqual([]);
  });

  it("shows a submitted review's pictures, the asking review's first, a large WebP scaled to a PNG", async () => {
    world = await worlds.create([reply(ONE_ITEM('completed')), reply(text('Looked at both.'))], {
      issue: { title: 'Tidy up', user: 'github-actions[bot]', pull_request: { head: 'feature' } },
    });
    await pushFeatureBranch((args) => world!.sandbox.git(args));
    const pixels = new Uint8Array(3000 * 1500 * 4).map((_, i) => (i % 4 === 3 ? 255 : (i * 7) % 256));
    const shot = world.github.addAttachment(await webp(3000, 1500, pixels), 'image/webp');
    const earlier = world.github.addAttachment(png(300, 200));
    world.github.addReview(1, 'reader', { body: `Looks off:\n\n![](${earlier})`, state: 'COMMENTED' });
    const review = world.github.addReview(1, 'maintainer', {
      body: `/agent the header still overlaps, see\n\n<img alt="the header" src="${shot}">`,
      state: 'CHANGES_REQUESTED',
    });
    world.github.addReviewComment(1, 'maintainer', {
      body: 'The same bug as #7.',
      path: 'hello.py',
      line: 1,
      diffHunk: '@@ -1,1 +1,1 @@\n-a\n+b',
      reviewId: review.id,
    });
    const pull = world.github.state.pulls[0]!;
    const run = await world.runEvent('pull_request_review', pullRequestReviewEvent({ review, pull }), {
      env: { GITHUB_SERVER_URL: world.github.url },
    });
    expect(run.outputs.status).toBe('completed');
    const first = world.model.requests[0]!.body.messages[0]!;
    const images = imagesOf(first.content);
    expect(images.map((i) => i.source.media_type)).toEqual(['image/png', 'image/png']);
    const scaled = PNG.sync.read(Buffer.from(images[0]!.source.data, 'base64'));
    expect([scaled.width, scaled.height]).toEqual([1568, 784]);
    expect(PNG.sync.read(Buffer.from(images[1]!.source.data, 'base64')).width).toBe(300);
    const texts = (first.content as Array<{ text?: string }>).map((b) => b.text ?? '').join('\n');
    expect(texts).toMatch(
      /Picture 1: from the trigger review by @maintainer on \d{4}-\d\d-\d\d \(1568×784 px\)/,
    );
    expect(texts).toMatch(/Picture 2: from a review by @reader \(no write access\) on [\d-]+ \(300×200 px\)/);
    expect(texts).not.toContain('the header"');
    // The earlier review's words are part of the thread the model reads, once, marked as a review; the asking
    // review is the task, not a comment before it.
    const thread = firstMessageText(world.model.requests[0]!);
    expect(thread.split('Looks off:')).toHaveLength(2);
    expect(thread).toMatch(/"author": "reader",[^}]*"review": "COMMENTED",\s*"body": "Looks off:/);
    expect(thread).not.toContain('"review": "CHANGES_REQUESTED"');
    // The review threads are read for the map of what the thread points to, too.
    expect(firstMessageText(world.model.requests[0]!)).toContain(
      '#7: not found in this repository\n</references>',
    );
    const listed = world.github.calls.filter((c) => c.operationId === 'pulls/list-reviews');
    // Asked with the media type documented for reviews (vnd.github-commitcomment.full+json): the emulator
    // renders them for no other, and they came rendered, their uploads as signed URLs.
    expect(listed).toHaveLength(1);
    expect(JSON.stringify(listed[0]!.response)).toContain('/private-user-images/');
    expect(world.github.calls.filter((c) => c.path.startsWith('/private-user-images/'))).toHaveLength(2);
    expectHonestReads(world.github);
    expect(world.model.violations).toEqual([]);
  });

  it("tells the model when the thread's pictures cannot be read, and runs on", async () => {
    world = await worlds.create([reply(ONE_ITEM('completed')), reply(text('Done without it.'))]);
    world.github.state.issues.get(1)!.body = `See ![](${world.github.addAttachment(png(20, 20))})`;
    // The rendered description is refused (as for a token without issues: read on a private repository).
    world.github.failNext(
      { method: 'GET', path: /\/issues\/1$/ },
      { status: 403, body: { message: 'Resource not accessible by integration', status: '403' } },
    );
    const run = await world.trigger('/agent fix the layout, see the screenshot');
    expect(run.outputs.status).toBe('completed');
    const first = world.model.requests[0]!.body.messages[0]!;
    expect(imagesOf(first.content)).toEqual([]);
    expect(firstMessageText(world.model.requests[0]!)).toContain(
      'Picture 1: from the thread, not shown: its pictures could not be read (Resource not accessible by integration',
    );
    expect(world.github.calls.filter((c) => c.path.startsWith('/private-user-images/'))).toEqual([]);
  });

  it("reads a PR's failing check and its job log with the github tool, fixes the file, and verify passes", async () => {
    const files = { ...HELLO_FILES, 'hello.py': 'def greet(name):\n    return "Helo, " + name + "!"\n' };
    world = await worlds.create(
      oneItemScript(
        TASK_ITEM,
        [
          toolUse('github', { what: 'checks', number: 1 }),
          toolUse('github', { what: 'job_log', job_id: 40_000_001 }),
          toolUse('edit_file', { path: 'hello.py', old_text: '"Helo, "', new_text: '"Hello, "' }),
        ],
        'Fixed the greeting the test expects.',
      ),
      { files, issue: { pull_request: { head: 'feature' } } },
    );
    await pushFeatureBranch((args) => world!.sandbox.git(args));
    const noise = Array.from(
      { length: 400 },
      (_, i) => `2026-12-03T10:00:${String(i % 60).padStart(2, '0')}.0000000Z collected item ${i}`,
    );
    world.github.addCheckRun({
      name: 'test',
      ref: 'feature',
      conclusion: 'failure',
      steps: [
        { name: 'Set up job', conclusion: 'success' },
        { name: 'Run python3 -m pytest', conclusion: 'failure' },
      ],
      log: [
        ...noise,
        '2026-12-03T10:01:00.0000000Z E   AssertionError: expected "Hello, world!", got "Helo, world!"',
        '2026-12-03T10:01:00.1000000Z ##[error]Process completed with exit code 1.',
      ].join('\n'),
    });
    world.github.addCheckRun({ name: 'lint', ref: 'feature', conclusion: 'success' });
    world.github.addStatus({
      ref: 'feature',
      context: 'ci/docs',
      state: 'success',
      description: 'Docs built',
    });
    const run = await world.trigger('/agent CI is red, fix it (the flaky one was #7)', {
      pullRequest: true,
      inputs: { verify_command: 'grep -q "Hello, " hello.py' },
    });
    expect(run.outputs.status).toBe('completed');
    const { requests } = world.model;
    // Counted in the job summary: #7 for the map, then the PR, its check runs and statuses, the job and its log.
    expect(run.summary).toContain('GitHub requests for the model: 6');
    // The map of what the task points to, in the first message.
    expect(firstMessageText(requests[0]!)).toContain('#7: not found in this repository\n</references>');
    const [checks] = newestResults(requests[2]!);
    expect(checks!.isError).toBe(false);
    expect(checks!.text.split('\n').slice(0, 3)).toEqual([
      expect.stringMatching(/^checks of pull request #1's head feature \([0-9a-f]{12}\):$/),
      expect.stringMatching(
        /^✗ test: completed, failure; job_id 40000001 https:\/\/github\.com\/.+\/job\/40000001$/,
      ),
      expect.stringMatching(/^✓ lint: completed, success; job_id 40000002/),
    ]);
    expect(checks!.text).toContain('commit statuses (combined: success):\n✓ ci/docs: success — Docs built');
    const [log] = newestResults(requests[3]!);
    expect(log!.text).toContain('✗ step 2: Run python3 -m pytest (failure)');
    expect(log!.text).toContain('errors:\n##[error]Process completed with exit code 1.');
    // The tail: the last lines, without timestamps; the start of a 400-line log is not there.
    expect(log!.text).toMatch(
      /E {3}AssertionError: expected "Hello, world!", got "Helo, world!"\n##\[error\]Process completed with exit code 1\.$/,
    );
    expect(log!.text).not.toContain('collected item 0\n');
    // Every answer the emulator gave (check runs, statuses, the job, the log's redirect) is as GitHub documents it.
    expectHonestReads(world.github);
  });

  it('read_file of a PNG in the workspace returns an image block', async () => {
    world = await worldReading('shot.png', png(320, 200), 'Looked at the screenshot.');
    const run = await world.trigger('/agent look at docs/shot.png');
    expect(run.outputs.status).toBe('completed');
    const result = (
      world.model.requests[2]!.body.messages.at(-1)!.content as Array<{ type: string; content?: unknown }>
    ).find((block) => block.type === 'tool_result')!;
    const blocks = result.content as Array<{ type: string; text?: string }>;
    expect(blocks[0]).toEqual({ type: 'text', text: 'docs/shot.png: PNG image, 320×200 px (shown below)' });
    const [image] = imagesOf(blocks);
    expect(image!.source.media_type).toBe('image/png');
    expect(PNG.sync.read(Buffer.from(image!.source.data, 'base64')).width).toBe(320);
    expect(world.model.violations).toEqual([]);
  });

  it('read_file of a PNG bomb says why it is not shown, and the action stays small', async () => {
    const bytes = await bomb();
    expect(bytes.length).toBeLessThan(600_000);
    world = await worldReading('bomb.png', bytes, 'That picture could not be read.');
    const probe = await memoryProbe();
    const run = await world.trigger('/agent look at docs/bomb.png', {
      nodeArgs: probe.nodeArgs,
      env: probe.env,
    });
    expect(run.outputs.status).toBe('completed');
    expect(newestResults(world.model.requests[2]!)).toEqual([
      { isError: true, text: `read_file failed: docs/bomb.png cannot be shown: ${BOMB_SKIPPED}` },
    ]);
    expect((await probe.read()).peakRssKb).toBeLessThan(MAX_ACTION_RSS_KB);
    expect(world.model.violations).toEqual([]);
  });

  it("shows a stranger's real screenshot beside three PNG bombs, naming each bomb as not shown", async () => {
    world = await worlds.create([reply(ONE_ITEM('completed')), reply(text('Looked at the screenshot.'))]);
    const bytes = await bomb();
    const bombs = [1, 2, 3].map(() => world!.github.addAttachment(bytes));
    const shot = world.github.addAttachment(png(2400, 1200));
    world.github.addComment(
      1,
      'stranger',
      `Same bug here:\n\n${bombs.map((url, i) => `![bomb ${i}](${url})`).join('\n')}\n![the bug](${shot})`,
    );
    const probe = await memoryProbe();
    const run = await world.trigger('/agent fix the layout, see the screenshots', {
      env: { GITHUB_SERVER_URL: world.github.url, ...probe.env },
      nodeArgs: probe.nodeArgs,
    });
    expect(run.outputs.status).toBe('completed');
    const first = world.model.requests[0]!.body.messages[0]!;
    const [image, ...others] = imagesOf(first.content);
    expect(others).toEqual([]);
    const sent = PNG.sync.read(Buffer.from(image!.source.data, 'base64'));
    expect([sent.width, sent.height]).toEqual([1568, 784]);
    const texts = (first.content as Array<{ text?: string }>).map((b) => b.text ?? '').join('\n');
    const from = String.raw`from a comment by @stranger \(no write access\) on [\d-]+`;
    for (const n of [1, 2, 3])
      expect(texts).toMatch(new RegExp(`Picture ${n}: ${from}, not shown: ${BOMB_SKIPPED}\n`));
    expect(texts).toMatch(new RegExp(`Picture 4: ${from} \\(1568×784 px\\)`));
    expect(run.stdout).toContain('Pictures from the thread: 1 shown, 3 not.');
    expect((await probe.read()).peakRssKb).toBeLessThan(MAX_ACTION_RSS_KB);
    expect(world.model.violations).toEqual([]);
  });

  it('refuses a github search that names another repository, and asks GitHub nothing for it', async () => {
    world = await worlds.create(
      oneItemScript(
        TASK_ITEM,
        [
          toolUse('github', { what: 'search', query: 'crash repo:someone/else' }),
          toolUse('github', { what: 'search', query: 'type hints' }),
        ],
        'Searched.',
      ),
    );
    const run = await world.trigger('/agent find related issues');
    expect(run.outputs.status).toBe('completed');
    const [refused] = newestResults(world.model.requests[2]!);
    expect(refused).toEqual({
      isError: true,
      text: 'github failed: the query names a scope (repo:); the github tool searches octo-org/hello-world only, so leave the qualifier out',
    });
    const [found] = newestResults(world.model.requests[3]!);
    expect(found!.text).toBe('1 match(es) for "type hints":\n#1 issue, open: Tidy up hello.py');
    const searches = world.github.calls.filter((c) => c.operationId === 'search/issues-and-pull-requests');
    expect(searches.map((c) => c.query.q)).toEqual(['type hints repo:octo-org/hello-world']);
    expectHonestReads(world.github);
  });
});
