// The decoder process's work, called directly: a picture too large to send is scaled to a long edge of
// 1,568 px in the format that suits it, and what cannot be read is skipped with the reason in a few words.
import { describe, expect, it } from 'vitest';
import { shrinkToFit } from '../../../src/images/decoding/shrink-to-fit.js';
import { sniffImage } from '../../../src/images/sniff.js';
import { jpg, png, rgba, webpHeader } from '../../support/pictures.js';
import { webp } from '../../support/webp.js';

/** What the image it made is, read back from its own bytes. */
function made(fit: Awaited<ReturnType<typeof shrinkToFit>>) {
  if (!('image' in fit)) throw new Error(`skipped: ${fit.skipped}`);
  const kind = sniffImage(Buffer.from(fit.image.data, 'base64'))!;
  return { ...fit.image, data: undefined, sniffed: [kind.mediaType, kind.width, kind.height] };
}

describe('shrinkToFit', () => {
  it('scales a large screenshot to a long edge of 1,568 px and keeps it a PNG', async () => {
    expect(made(await shrinkToFit(png(2000, 1000)))).toEqual({
      mediaType: 'image/png',
      data: undefined,
      width: 1568,
      height: 784,
      scaledFrom: { width: 2000, height: 1000 },
      sniffed: ['image/png', 1568, 784],
    });
  });

  it('makes a photograph a JPEG again, and a WebP a PNG', async () => {
    expect(made(await shrinkToFit(jpg(1000, 2000)))).toMatchObject({
      mediaType: 'image/jpeg',
      sniffed: ['image/jpeg', 784, 1568],
    });
    const wide = await webp(
      1800,
      20,
      rgba(1800, 20, (x) => [x % 256, 0, 0, 255]),
      { lossless: true },
    );
    expect(made(await shrinkToFit(wide))).toMatchObject({ mediaType: 'image/png', width: 1568 });
  });

  it.each([
    ['bytes of no picture format', Buffer.from('GIF87 but not quite'), 'not a PNG, JPEG, GIF or WebP image'],
    ['a PNG cut short', png(300, 300).subarray(0, 200), /^a damaged PNG image/],
    ['a WebP with a header and no picture', webpHeader(64, 64), 'an animated or damaged WebP image'],
  ])('skips %s, and says why', async (_what, bytes, why) => {
    const fit = await shrinkToFit(bytes);
    expect(fit).not.toHaveProperty('image');
    expect((fit as { skipped: string }).skipped).toMatch(why);
  });
});
