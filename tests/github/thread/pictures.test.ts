import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PNG } from 'pngjs';
import { afterEach, describe, expect, it } from 'vitest';
import type { IssueComment } from '../../../src/github/api.js';
import { MAX_PICTURES, pictureSources, threadPictures } from '../../../src/github/thread/pictures.js';

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

  it('shows at most `max` pictures, lists the others and the ones on other hosts, and never fails', async () => {
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
      ['two', 'download failed (HTTP 404)'],
      ['two', '4×3'],
      ['1 more picture(s)', 'over the limit of 2 a run'],
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
