// The thread's pictures downloaded from the GitHub emulator a few at a time: shown in the thread's order
// whatever order the downloads end in, within the byte budget, never more fetched than one at a time would
// fetch, and each download with its own stall timeout.
import { PNG } from 'pngjs';
import { describe, expect, it, vi } from 'vitest';
import { GitHubApi } from '../../../src/github/api.js';
import { PARALLEL_DOWNLOADS, threadPictures, type Picture } from '../../../src/github/thread/pictures.js';
import type { GitHubEmulator } from '../../support/github/emulator.js';
import { TEST_REPO, TEST_TOKEN, useEmulatorPerTest } from '../../support/github/per-test.js';

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
  return { emu, html: await api.issueHtml(1), uuids: shots.map((shot) => shot.split('/').at(-1)!) };
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

  it('fetches no picture that one at a time would not, past `max` shown or failed ones', async () => {
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
      '4×1',
      'over the limit of 3 a run',
    ]);
    expect(pictures.at(-1)!.label).toBe('3 more picture(s)');
    // One at a time would have fetched exactly these four: 1, the spoiled 2, 3 and 4.
    expect(downloads(emu)).toHaveLength(4);
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
});
