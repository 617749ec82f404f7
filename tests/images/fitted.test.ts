// The numbers that bound a picture's making: base64's growth, the size in words, and the pixel cap an image's
// header is judged by before any decoder starts.
import { describe, expect, it } from 'vitest';
import * as fitted from '../../src/images/fitted.js';

describe('fitted', () => {
  it("counts base64's four characters for every three bytes begun", () => {
    for (const bytes of [0, 1, 2, 3, 4, 5 * 1024 * 1024]) {
      expect(fitted.base64Length(bytes)).toBe(Buffer.alloc(bytes).toString('base64').length);
    }
  });

  it('decodes an image of up to 25 megapixels, and says why it will not decode a larger one', () => {
    expect(fitted.MAX_DECODE_PIXELS).toBe(25_000_000);
    expect(fitted.overPixelCap(5000, 5000)).toBeUndefined();
    expect(fitted.overPixelCap(6000, 4000)).toBeUndefined();
    expect(fitted.overPixelCap(5001, 5000)).toBe(
      'too large to scale (5001×5000 px; the most is 25 megapixels)',
    );
    expect(fitted.px(3, 2)).toBe('3×2 px');
  });

  it('tells our own findings apart from any other error', () => {
    const found = new fitted.DamagedImage('its data ends early');
    expect(found).toBeInstanceOf(Error);
    expect(new Error('x')).not.toBeInstanceOf(fitted.DamagedImage);
  });
});
