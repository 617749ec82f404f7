import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PNG } from 'pngjs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { GitHubApi } from '../../../src/github/api/github-api.js';
import type { IssueComment } from '../../../src/github/api/issues.js';
import {
  MAX_PICTURES,
  PARALLEL_DOWNLOADS,
  pictureSources,
  threadPictures,
  type Picture,
} from '../../../src/github/thread/pictures.js';
import type { GitHubEmulator } from '../../support/github/emulator.js';
import { TEST_REPO, TEST_TOKEN, useEmulatorPerTest } from '../../support/github/per-test.js';

const comment = (
  id: number,
  user: string,
  createdAt: string,
  bodyHtml: string,
  extra = {},
): IssueComment => ({
  id,
  body: '',
  bodyHtml,
  user,
  userType: 'User',
  association: 'NONE',
  createdAt,
  updatedAt: createdAt,
  htmlUrl: '',
  ...extra,
});

describe('pictureSources', () => {
  it("orders the trigger's own first, then comments and review comments newest first, then the description", () => {
    const sources = pictureSources({
      trigger: comment(9, 'maintainer', '2026-12-03T10:00:00Z', 'T'),
      comments: [
        comment(1, 'alice', '2026-12-01T10:00:00Z', 'A'),
        comment(2, 'bob', '2026-12-02T10:00:00Z', 'B', { path: 'src/x.ts' }),
        comment(3, 'ci[bot]', '2026-12-02T11:00:00Z', 'bot'),
        comment(2, 'carol', '2026-12-02T12:00:00Z', 'R', { state: 'CHANGES_REQUESTED' }),
      ],
      description: { html: 'D', author: 'alice', kind: 'issue' },
      permissions: new Map([
        ['maintainer', 'admin'],
        ['alice', 'write'],
      ]),
    });
    expect(sources).toEqual([
      { label: 'the trigger comment by @maintainer on 2026-12-03', html: 'T' },
      { label: 'a review by @carol (no write access) on 2026-12-02', html: 'R' },
      { label: 'a review comment on src/x.ts by @bob (no write access) on 2026-12-02', html: 'B' },
      { label: 'a comment by @alice on 2026-12-01', html: 'A' },
      { label: 'the issue description by @alice', html: 'D' },
    ]);
  });

  it('labels a submitted review that asked as the trigger review', () => {
    const review = comment(5, 'maintainer', '2026-12-03T10:00:00Z', 'T', { state: 'COMMENTED' });
    const sources = pictureSources({
      trigger: review,
      comments: [review],
      description: { html: '', author: 'maintainer', kind: 'pull request' },
      permissions: new Map([['maintainer', 'write']]),
    });
    expect(sources.map((s) => s.label)).toEqual([
      'the trigger review by @maintainer on 2026-12-03',
      'the pull request description by @maintainer',
    ]);
  });
});

describe('threadPictures', () => {
  let server: Server | undefined;
  afterEach(async () => {
    await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
    server = undefined;
  });

  it('tries at most `max` pictures, failed ones counted, lists the others and the ones on other hosts', async () => {
    const png = PNG.sync.write(new PNG({ width: 4, height: 3 }));
    server = createServer((req, res) => {
      if (req.url?.startsWith('/ok.png')) res.writeHead(200, { 'content-type': 'image/png' }).end(png);
      else if (req.url === '/text') res.writeHead(200).end('not an image');
      else res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const img = (src: string) => `<img src="${src}">`;
    const pictures = await threadPictures(
      [
        { label: 'one', html: img(`${url}/ok.png`) + img('https://camo.githubusercontent.com/x') },
        {
          label: 'two',
          html: img(`${url}/text`) + img(`${url}/gone`) + img(`${url}/ok.png?2`) + img(`${url}/ok.png?3`),
        },
      ],
      url,
      { max: 2 },
    );
    expect(
      pictures.map(({ label, image, skipped }) => [
        label,
        image ? `${image.width}×${image.height}` : skipped,
      ]),
    ).toEqual([
      ['one', '4×3'],
      ['one', 'on a host other than GitHub, so not fetched'],
      ['two', 'not a PNG, JPEG, GIF or WebP image'],
      ['3 more picture(s)', 'over the limit of 2 a run'],
    ]);
    const more = await threadPictures(
      [{ label: 'two', html: img(`${url}/text`) + img(`${url}/gone`) + img(`${url}/ok.png?2`) }],
      url,
      { max: 3 },
    );
    expect(more.map(({ image, skipped }) => (image ? 'shown' : skipped))).toEqual([
      'not a PNG, JPEG, GIF or WebP image',
      'download failed (HTTP 404)',
      'shown',
    ]);
  });

  it('shows 20 a run by default, the first sources first, and fetches none past them', async () => {
    const png = PNG.sync.write(new PNG({ width: 2, height: 2 }));
    const asked: string[] = [];
    server = createServer((req, res) => {
      asked.push(req.url ?? '');
      res.writeHead(200, { 'content-type': 'image/png' }).end(png);
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const sources = Array.from({ length: 22 }, (_, i) => ({
      label: `source ${i + 1}`,
      html: `<img src="${url}/${i + 1}.png">`,
    }));
    expect(MAX_PICTURES).toBe(20);
    const pictures = await threadPictures(sources, url);
    expect(pictures.filter((p) => p.image).map((p) => p.label)).toEqual(
      sources.slice(0, 20).map((s) => s.label),
    );
    expect(pictures.at(-1)).toEqual({ label: '2 more picture(s)', skipped: 'over the limit of 20 a run' });
    expect(asked).toHaveLength(20);
  });

  it('stops showing pictures past `maxBytes` of picture data, and says so for each one left out', async () => {
    const png = PNG.sync.write(new PNG({ width: 4, height: 3 }));
    server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'image/png' }).end(png));
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const html = [1, 2, 3].map((n) => `<img src="${url}/p${n}.png">`).join('');
    const [first] = await threadPictures([{ label: 'one', html: `<img src="${url}/p0.png">` }], url);
    const each = first!.image!.data.length;
    const pictures = await threadPictures([{ label: 'many', html }], url, { maxBytes: 2 * each + 1 });
    expect(pictures.map(({ image, skipped }) => (image ? 'shown' : skipped))).toEqual([
      'shown',
      'shown',
      `over the ${2 * each + 1} bytes of pictures a run shows`,
    ]);
  });
});

// The thread's pictures downloaded from the GitHub emulator a few at a time: shown in the thread's order
// whatever order the downloads end in, within the byte budget, never more fetched than one at a time would
// fetch, and each download with its own stall timeout.
const startEmulator = useEmulatorPerTest();

/** A PNG told apart by its width; `noise` makes it large (random pixels do not compress). */
function png(width: number, height = 1, noise = false): Buffer {
  const image = new PNG({ width, height });
  if (noise) for (let i = 0; i < image.data.length; i++) image.data[i] = (i * 7919 + (i >> 3) * 104729) % 256;
  return PNG.sync.write(image);
}

/** An issue whose description shows `images`, and its rendered HTML (signed download URLs, in order). */
async function issueShowing(
  images: Buffer[],
): Promise<{ emu: GitHubEmulator; html: string; uuids: string[] }> {
  const emu = await startEmulator({ issues: [{ number: 1, title: 'Look', body: '' }] });
  const shots = images.map((bytes) => emu.addAttachment(bytes));
  emu.state.issues.get(1)!.body = shots.map((shot) => `![](${shot})`).join('\n\n');
  const api = new GitHubApi({ ...TEST_REPO, token: TEST_TOKEN, baseUrl: emu.url, warn: () => {} });
  return { emu, html: await api.issues.issueHtml(1), uuids: shots.map((shot) => shot.split('/').at(-1)!) };
}

const downloads = (emu: GitHubEmulator) =>
  emu.calls.filter((c) => c.path.startsWith('/private-user-images/'));
const shownAs = (pictures: Picture[]) =>
  pictures.map(({ image, skipped }) => (image ? `${image.width}×${image.height}` : skipped));

describe('threadPictures downloads', () => {
  it(`downloads ${PARALLEL_DOWNLOADS} at a time and shows the pictures in the thread's order`, async () => {
    expect(PARALLEL_DOWNLOADS).toBe(4);
    const { emu, html, uuids } = await issueShowing([1, 2, 3, 4, 5, 6].map((w) => png(w)));
    // The first four downloads are held: the first longest, so the later ones are answered before it.
    const release = uuids.slice(0, 4).map((uuid) => emu.holdNext({ path: new RegExp(uuid) }));
    const reading = threadPictures([{ label: 'description', html }], emu.url);
    await vi.waitFor(() => expect(downloads(emu)).toHaveLength(4));
    release[3]!();
    release[2]!();
    release[1]!();
    await vi.waitFor(() => expect(downloads(emu).filter((c) => c.status === 200)).toHaveLength(3));
    // Three have come back, but the first is still awaited: four are under way or waiting to be used, so no
    // fifth is asked for yet.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(downloads(emu)).toHaveLength(4);
    release[0]!();
    expect(shownAs(await reading)).toEqual(['1×1', '2×1', '3×1', '4×1', '5×1', '6×1']);
    expect(downloads(emu).map((c) => c.path.split('/').at(-1))).toEqual(expect.arrayContaining(uuids));
    expect(downloads(emu)).toHaveLength(6);
    expect(emu.violations).toEqual([]);
  });

  it('fetches no picture that one at a time would not, past `max` tried, failed ones counted', async () => {
    const { emu, html } = await issueShowing([1, 2, 3, 4, 5, 6, 7].map((w) => png(w)));
    const srcs = [...html.matchAll(/<img src="([^"]*)"/g)].map((m) => m[1]!.replace(/&amp;/g, '&'));
    // The second picture's signature is spoiled: GitHub's storage answers 403, and the next one is fetched.
    const pictures = await threadPictures(
      [
        { label: 'a', html: `<img src="${srcs[0]}"><img src="${srcs[1]}x">` },
        {
          label: 'b',
          html: srcs
            .slice(2)
            .map((src) => `<img src="${src}">`)
            .join(''),
        },
      ],
      emu.url,
      { max: 3 },
    );
    expect(shownAs(pictures)).toEqual([
      '1×1',
      'download failed (HTTP 403)',
      '3×1',
      'over the limit of 3 a run',
    ]);
    expect(pictures.at(-1)!.label).toBe('4 more picture(s)');
    // One at a time would have fetched exactly these three: 1, the spoiled 2, and 3.
    expect(downloads(emu)).toHaveLength(3);
  });

  it('keeps to the byte budget in order: a large picture is left out, a later small one still shown', async () => {
    const large = png(300, 300, true);
    const { emu, html } = await issueShowing([png(10), large, png(20), png(30)]);
    const [small] = await threadPictures([{ label: 'one', html: html.split('</p>')[0]! }], emu.url);
    const each = small!.image!.data.length;
    expect(large.length).toBeGreaterThan(10 * each);
    const pictures = await threadPictures([{ label: 'all', html }], emu.url, { maxBytes: 3 * each + 100 });
    expect(shownAs(pictures)).toEqual([
      '10×1',
      `over the ${3 * each + 100} bytes of pictures a run shows`,
      '20×1',
      '30×1',
    ]);
    expect(
      pictures.filter((p) => p.image).reduce((sum, p) => sum + p.image!.data.length, 0),
    ).toBeLessThanOrEqual(3 * each + 100);
  });

  it('gives up a stalled download after its own timeout while the others are shown', async () => {
    const { emu, html, uuids } = await issueShowing([png(1), png(2), png(3)]);
    emu.holdNext({ path: new RegExp(uuids[1]!) }); // never released: a storage host that does not answer
    const pictures = await threadPictures([{ label: 'description', html }], emu.url, { timeoutMs: 300 });
    expect(shownAs(pictures)).toEqual(['1×1', 'download failed (no answer within 0.3 s)', '3×1']);
    expect(downloads(emu)).toHaveLength(3);
  });

  it('counts broken pictures toward the 20 a run: 25 of them cost 20 downloads and decodes, no more', async () => {
    const broken = Buffer.from('not a picture at all');
    const { emu, html } = await issueShowing(Array.from({ length: 25 }, () => broken));
    const pictures = await threadPictures([{ label: 'description', html }], emu.url);
    expect(pictures.at(-1)).toEqual({ label: '5 more picture(s)', skipped: 'over the limit of 20 a run' });
    expect(downloads(emu)).toHaveLength(20);
  });

  it('skips the pictures still to be scaled once the time for all of them is up', async () => {
    const { emu, html } = await issueShowing([png(2000, 2), png(10), png(2100, 2)]);
    const pictures = await threadPictures([{ label: 'description', html }], emu.url, { timeMs: 1 });
    // The small one needs no scaling, so no time: it is shown.
    expect(shownAs(pictures)).toEqual([
      "not decoded: the thread's pictures took over 0.001 s",
      '10×1',
      "not decoded: the thread's pictures took over 0.001 s",
    ]);
  });
});
