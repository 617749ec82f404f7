import { inflateSync } from 'node:zlib';
import { PNG } from 'pngjs';
import { describe, expect, it } from 'vitest';
import { DamagedImage } from '../../../src/images/fitted.js';
import { decodePng, inflatedSize, pngHeader } from '../../../src/images/decoding/png.js';
import { pngBomb, rgbaRows } from '../../support/hostile-images.js';

/** A real PNG by pngjs: the colour type and depth asked for, interlaced or not. */
function png(width: number, height: number, options: { colorType?: 0 | 2 | 4 | 6; bitDepth?: 8 | 16 } = {}) {
  const image = new PNG({ width, height });
  image.data.fill(200);
  return PNG.sync.write(image, { colorType: options.colorType ?? 6, bitDepth: options.bitDepth ?? 8 });
}

/** What a PNG's IDAT data inflates to, measured. */
function inflatedLength(bytes: Buffer): number {
  const parts: Buffer[] = [];
  for (let at = 8; at < bytes.length;) {
    const length = bytes.readUInt32BE(at);
    if (bytes.toString('latin1', at + 4, at + 8) === 'IDAT')
      parts.push(bytes.subarray(at + 8, at + 8 + length));
    at += 12 + length;
  }
  return inflateSync(Buffer.concat(parts)).length;
}

describe('inflatedSize', () => {
  it.each([
    ['RGBA', 6, 8],
    ['RGB', 2, 8],
    ['grey', 0, 8],
    ['grey and alpha', 4, 8],
    ['RGBA, 16 bits', 6, 16],
  ] as const)('is what a real %s PNG inflates to', (_case, colorType, bitDepth) => {
    const bytes = png(37, 11, { colorType, bitDepth });
    expect(inflatedSize(pngHeader(bytes))).toBe(inflatedLength(bytes));
  });

  it('counts the seven passes of an interlaced image, each row with its filter byte', () => {
    const header = { width: 1, height: 1, bitDepth: 8, colorType: 6, interlaced: true };
    expect(inflatedSize(header)).toBe(5); // the first pass alone holds the one pixel
    // 8 × 8: passes of 1×1, 1×1, 2×1, 2×2, 4×2, 4×4 and 8×4 pixels, 4 bytes each, a filter byte a row.
    expect(inflatedSize({ ...header, width: 8, height: 8 })).toBe(
      [
        [1, 1],
        [1, 1],
        [2, 1],
        [2, 2],
        [4, 2],
        [4, 4],
        [8, 4],
      ].reduce((sum, [w, h]) => sum + (w! * 4 + 1) * h!, 0),
    );
    expect(inflatedSize({ ...header, width: 2000, height: 2000 })).toBe(16_003_750);
  });
});

describe('pngHeader', () => {
  it('reads what the header declares', () => {
    expect(pngHeader(png(30, 20))).toEqual({
      width: 30,
      height: 20,
      bitDepth: 8,
      colorType: 6,
      interlaced: false,
    });
  });

  it('refuses a header the specification does not allow', () => {
    const bytes = png(4, 4);
    bytes[24] = 3; // a bit depth of 3
    expect(() => pngHeader(bytes)).toThrow(new DamagedImage('an invalid header'));
    const wide = png(4, 4);
    wide.writeUInt32BE(2 ** 31, 16);
    expect(() => pngHeader(wide)).toThrow(DamagedImage);
  });
});

describe('decodePng', () => {
  it('decodes a real PNG', async () => {
    const pixels = await decodePng(png(3, 2));
    expect([pixels.width, pixels.height, pixels.data.length]).toEqual([3, 2, 24]);
    expect(pixels.data[0]).toBe(200);
  });

  it('refuses an interlaced PNG whose data inflates past its header, before pngjs inflates it', async () => {
    // Half a megabyte that inflates to 512 MB; its header declares 2,000 × 2,000 (about 16 MB).
    const bomb = await pngBomb({ width: 2000, height: 2000, inflatedBytes: 512 * 1024 * 1024 });
    expect(bomb.length).toBeLessThan(600_000);
    const before = process.memoryUsage().arrayBuffers;
    await expect(decodePng(bomb)).rejects.toThrow(
      new DamagedImage('its pixel data inflates past the 16,003,750 bytes its header declares'),
    );
    // Counted and let go as it came: nothing near the 512 MB is held.
    expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(64 * 1024 * 1024);
  });

  it('still decodes a PNG whose data inflates to exactly what its header declares', async () => {
    const honest = await pngBomb({
      width: 64,
      height: 64,
      inflatedBytes: inflatedSize({ width: 64, height: 64, bitDepth: 8, colorType: 6, interlaced: true }),
    });
    expect((await decodePng(honest)).width).toBe(64);
    const plain = await pngBomb({ width: 50, height: 9, inflatedBytes: rgbaRows(50, 9), interlaced: false });
    expect((await decodePng(plain)).height).toBe(9);
  });
});
