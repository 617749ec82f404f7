import { randomBytes } from 'node:crypto';
import { PNG } from 'pngjs';
import { describe, expect, it } from 'vitest';
import { fitImage, MAX_EDGE, MAX_IMAGE_BASE64_BYTES } from '../../src/images/fit.js';
import { sniffImage } from '../../src/images/sniff.js';
import { shrink } from '../../src/images/decoding/scale.js';
import { gifFrameBomb, jpegClaiming, pngBomb, webpCanvasLie } from '../support/hostile-images.js';
import { gif, jpg, png, rgba, webpHeader } from '../support/pictures.js';
import { webp } from '../support/webp.js';

const decoded = (data: string) => PNG.sync.read(Buffer.from(data, 'base64'));

describe('fitImage', async () => {
  it('sends a small image as it is', async () => {
    const bytes = png(200, 100);
    expect(await fitImage(bytes)).toEqual({
      image: { mediaType: 'image/png', data: Buffer.from(bytes).toString('base64'), width: 200, height: 100 },
    });
  });

  it('scales a large PNG so its long edge is 1,568 px, keeping the aspect ratio and the format', async () => {
    const fit = await fitImage(png(3136, 1000));
    if (!('image' in fit)) throw new Error(fit.skipped);
    expect(fit.image).toMatchObject({ mediaType: 'image/png', width: MAX_EDGE, height: 500 });
    expect(fit.image.scaledFrom).toEqual({ width: 3136, height: 1000 });
    const out = decoded(fit.image.data);
    expect([out.width, out.height]).toEqual([1568, 500]);
  });

  it('scales a JPEG to a JPEG, and a GIF to a PNG of its first frame', async () => {
    const photo = await fitImage(jpg(2000, 3000));
    if (!('image' in photo)) throw new Error(photo.skipped);
    expect(photo.image).toMatchObject({ mediaType: 'image/jpeg', width: 1045, height: 1568 });
    expect(sniffImage(Buffer.from(photo.image.data, 'base64'))).toEqual({
      mediaType: 'image/jpeg',
      width: 1045,
      height: 1568,
    });
    const anim = await fitImage(gif(3136, 4));
    if (!('image' in anim)) throw new Error(anim.skipped);
    expect(anim.image).toMatchObject({ mediaType: 'image/png', width: 1568, height: 2 });
  });

  it('scales a large WebP (lossy or lossless) to a PNG, its pixels decoded by libwebp', async () => {
    const pixels = rgba(3136, 1000, (x) => (x < 1568 ? [200, 30, 30, 255] : [20, 20, 220, 128]));
    for (const lossless of [false, true]) {
      const bytes = await webp(3136, 1000, pixels, { lossless });
      expect(sniffImage(bytes)).toMatchObject({ mediaType: 'image/webp', width: 3136, height: 1000 });
      const fit = await fitImage(bytes);
      if (!('image' in fit)) throw new Error(fit.skipped);
      expect(fit.image).toMatchObject({ mediaType: 'image/png', width: MAX_EDGE, height: 500 });
      expect(fit.image.scaledFrom).toEqual({ width: 3136, height: 1000 });
      const out = decoded(fit.image.data);
      // The left half is opaque red, the right half half-transparent blue, as drawn.
      const at = (x: number, y: number) => [
        ...out.data.subarray((y * out.width + x) * 4, (y * out.width + x) * 4 + 4),
      ];
      expect(at(100, 250)[0]).toBeGreaterThan(180);
      expect(at(100, 250)[3]).toBe(255);
      expect(at(1400, 250)[2]).toBeGreaterThan(180);
      expect(Math.abs(at(1400, 250)[3]! - 128)).toBeLessThanOrEqual(2);
    }
    // A small one goes as it is, still a WebP.
    const small = await fitImage(
      await webp(
        40,
        30,
        rgba(40, 30, () => [1, 2, 3, 255]),
      ),
    );
    expect(small).toMatchObject({ image: { mediaType: 'image/webp', width: 40, height: 30 } });
  });

  it('skips what it cannot make fit, saying why', async () => {
    expect(await fitImage(Buffer.from('just text'))).toEqual({
      skipped: 'not a PNG, JPEG, GIF or WebP image',
    });
    // A header that promises 4000×3000 and holds no picture (as an animation holds none libwebp reads still).
    expect(await fitImage(webpHeader(4000, 3000))).toEqual({ skipped: 'an animated or damaged WebP image' });
    // The header says 3000×3000; the pixels are missing.
    expect(await fitImage(png(3000, 3000).subarray(0, 2000))).toEqual({
      skipped: 'a damaged PNG image: a chunk cut short',
    });
  });

  it('names each bomb it skips, decoded apart from this process', async () => {
    const bomb = await pngBomb({ width: 2000, height: 2000, inflatedBytes: 512 * 1024 * 1024 });
    expect(await fitImage(bomb)).toEqual({
      skipped: 'a damaged PNG image: its pixel data inflates past the 16,003,750 bytes its header declares',
    });
    expect(await fitImage(gifFrameBomb([2000, 10], [60_000, 60_000]))).toEqual({
      skipped:
        'a damaged GIF image: its first frame (60000×60000 px at 0,0) lies outside its 2000×10 px screen',
    });
    expect(await fitImage(webpCanvasLie([2000, 2000], [16_000, 300]))).toEqual({
      skipped:
        'a damaged WEBP image: its picture (16000×300 px) is not the size of its canvas (2000×2000 px)',
    });
  });

  it('refuses from its header alone a picture that claims more pixels than the cap, in each format', async () => {
    // Headers with nothing after them: a decoder would call each damaged, so the reason shows none started.
    const pngHead = Buffer.alloc(33);
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]).copy(pngHead);
    pngHead.writeUInt32BE(13, 8);
    pngHead.write('IHDR', 12, 'latin1');
    pngHead.writeUInt32BE(8000, 16);
    pngHead.writeUInt32BE(8000, 20);
    pngHead.set([8, 6], 24);
    const gifHead = Buffer.alloc(13);
    gifHead.write('GIF89a', 0, 'latin1');
    gifHead.writeUInt16LE(8000, 6);
    gifHead.writeUInt16LE(8000, 8);
    const cap = { skipped: 'too large to scale (8000×8000 px; the most is 25 megapixels)' };
    for (const head of [pngHead, jpegClaiming(8000, 8000), gifHead, webpHeader(8000, 8000)])
      expect(await fitImage(head)).toEqual(cap);
    // A WebP's bitstream that claims more than its canvas is refused the same way.
    expect(await fitImage(webpCanvasLie([2000, 2000], [16_000, 16_000]))).toEqual({
      skipped: 'too large to scale (16000×16000 px; the most is 25 megapixels)',
    });
    // At the cap, a picture is decoded (and found damaged here, having no pixels).
    expect(await fitImage(webpHeader(5000, 5000))).toEqual({ skipped: 'an animated or damaged WebP image' });
  });

  it('keeps every image within the API’s 5 MB of base64, even noise that PNG cannot compress', async () => {
    const noise = randomBytes(1568 * 1400 * 3);
    const bytes = png(1568, 1400, (x, y) => [
      ...noise.subarray((y * 1568 + x) * 3, (y * 1568 + x) * 3 + 3),
      255,
    ]);
    expect(Math.ceil(bytes.length / 3) * 4).toBeGreaterThan(MAX_IMAGE_BASE64_BYTES);
    const fit = await fitImage(bytes);
    if (!('image' in fit)) throw new Error(fit.skipped);
    expect(fit.image.data.length).toBeLessThanOrEqual(MAX_IMAGE_BASE64_BYTES);
    expect(fit.image.mediaType).toBe('image/jpeg');
  });
});

describe('shrink', () => {
  it('averages by area, weighting colour by alpha so transparent pixels do not darken an edge', () => {
    // Two pixels: opaque red and fully transparent black, shrunk to one: half-transparent red.
    const out = shrink({ width: 2, height: 1, data: new Uint8Array([255, 0, 0, 255, 0, 0, 0, 0]) }, 1, 1);
    expect([...out.data]).toEqual([255, 0, 0, 128]);
  });
});
