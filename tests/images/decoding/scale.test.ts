// Shrinking pixels by area averaging (src/images/decoding/scale.ts), on images small enough to work out by
// hand: the size that fits, the mean of the pixels each new one covers, and alpha weighting at the edges.
import { describe, expect, it } from 'vitest';
import { fittedSize, shrink, type Pixels } from '../../../src/images/decoding/scale.js';

/** An image of `width`×`height` from its pixels, each [r, g, b, a], row by row. */
const image = (width: number, height: number, pixels: number[][]): Pixels => ({
  width,
  height,
  data: Uint8Array.from(pixels.flat()),
});
const pixelsOf = ({ data }: Pixels): number[][] =>
  Array.from({ length: data.length / 4 }, (_, i) => [...data.subarray(i * 4, i * 4 + 4)]);

describe('fittedSize', () => {
  it('fits the long side to the edge and keeps the aspect ratio, whichever side is long', () => {
    expect(fittedSize(3136, 1000, 1568)).toEqual({ width: 1568, height: 500 });
    expect(fittedSize(1000, 3136, 1568)).toEqual({ width: 500, height: 1568 });
  });

  it('never makes an image larger, and never a side of no pixels', () => {
    expect(fittedSize(800, 600, 1568)).toEqual({ width: 800, height: 600 });
    expect(fittedSize(100_000, 10, 1568)).toEqual({ width: 1568, height: 1 });
  });
});

describe('shrink', () => {
  it('hands back the image itself when it is no larger than the size asked', () => {
    const source = image(2, 1, [
      [1, 2, 3, 255],
      [4, 5, 6, 255],
    ]);
    expect(shrink(source, 2, 1)).toBe(source);
    expect(shrink(source, 4, 4)).toBe(source);
  });

  it('makes each new pixel the mean of the four it covers at half size', () => {
    const source = image(2, 2, [
      [0, 0, 0, 255],
      [100, 40, 20, 255],
      [200, 80, 40, 255],
      [100, 40, 20, 255],
    ]);
    expect(pixelsOf(shrink(source, 1, 1))).toEqual([[100, 40, 20, 255]]);
  });

  it('weights a source pixel by how much of it a new pixel covers (three into two)', () => {
    const source = image(3, 1, [
      [0, 0, 0, 255],
      [90, 90, 90, 255],
      [180, 180, 180, 255],
    ]);
    const shrunk = shrink(source, 2, 1);
    expect(shrunk).toMatchObject({ width: 2, height: 1 });
    // The first covers all of pixel 0 and half of pixel 1: (0 + 45) / 1.5; the second, half of 1 and all of 2.
    expect(pixelsOf(shrunk)).toEqual([
      [30, 30, 30, 255],
      [150, 150, 150, 255],
    ]);
  });

  it('weights colour by alpha, so a transparent neighbour does not darken an edge, and averages the alpha', () => {
    const source = image(2, 1, [
      [255, 0, 0, 255],
      [0, 0, 0, 0],
    ]);
    expect(pixelsOf(shrink(source, 1, 1))).toEqual([[255, 0, 0, 128]]);
    const clear = image(2, 1, [
      [255, 255, 255, 0],
      [0, 0, 0, 0],
    ]);
    expect(pixelsOf(shrink(clear, 1, 1))).toEqual([[0, 0, 0, 0]]);
  });

  it('shrinks each axis on its own', () => {
    const column = image(1, 4, [
      [0, 0, 0, 255],
      [20, 20, 20, 255],
      [40, 40, 40, 255],
      [60, 60, 60, 255],
    ]);
    expect(pixelsOf(shrink(column, 1, 2))).toEqual([
      [10, 10, 10, 255],
      [50, 50, 50, 255],
    ]);
  });
});
