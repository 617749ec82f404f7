// WebP's pixels through libwebp's WebAssembly decoder: a lossless file comes back pixel for pixel, a lossy
// one at its size, and bytes that are not a still WebP are refused without spoiling the next decode.
import { describe, expect, it } from 'vitest';
import { decodeWebp } from '../../../src/images/decoding/webp.js';
import { png, rgba, webpHeader } from '../../support/pictures.js';
import { webp } from '../../support/webp.js';

const pixels = rgba(7, 5, (x, y) => [x * 30, y * 50, 200, x === 0 ? 128 : 255]);

describe('decodeWebp', () => {
  it('decodes a lossless WebP to exactly the pixels it was made of, alpha included', async () => {
    const decoded = await decodeWebp(await webp(7, 5, pixels, { lossless: true }));
    expect(decoded.width).toBe(7);
    expect(decoded.height).toBe(5);
    expect([...decoded.data]).toEqual([...pixels]);
  });

  it('decodes a lossy WebP at its size', async () => {
    const decoded = await decodeWebp(
      await webp(
        40,
        30,
        rgba(40, 30, () => [10, 200, 30, 255]),
      ),
    );
    expect([decoded.width, decoded.height, decoded.data.length]).toEqual([40, 30, 40 * 30 * 4]);
    // Lossy, but a flat colour stays close to itself.
    expect(Math.abs(decoded.data[1]! - 200)).toBeLessThan(16);
  });

  it('refuses bytes that are no still WebP, and decodes the next picture all the same', async () => {
    await expect(decodeWebp(png(4, 4))).rejects.toThrow();
    await expect(decodeWebp(webpHeader(64, 64))).rejects.toThrow();
    expect(
      (
        await decodeWebp(
          await webp(
            2,
            2,
            rgba(2, 2, () => [1, 2, 3, 255]),
          ),
        )
      ).width,
    ).toBe(2);
  });
});
