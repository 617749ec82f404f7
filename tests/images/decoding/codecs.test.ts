// The decoders are held to what an image declares: checked in this process (the checks come before any
// allocation), as the decoder's process runs them.
import { describe, expect, it } from 'vitest';
import { decode } from '../../../src/images/decoding/codecs.js';
import { DamagedImage } from '../../../src/images/fitted.js';
import { gifFrameBomb, webpCanvasLie } from '../../support/hostile-images.js';

describe('decode', () => {
  it('refuses a GIF whose first frame is larger than its screen, before sizing a buffer for it', async () => {
    const bomb = gifFrameBomb([2000, 10], [60_000, 60_000]);
    await expect(decode(bomb, 'image/gif')).rejects.toThrow(
      new DamagedImage('its first frame (60000×60000 px at 0,0) lies outside its 2000×10 px screen'),
    );
    // The same GIF as written decodes.
    const fine = await decode(gifFrameBomb([2000, 10], [2000, 10]), 'image/gif');
    expect([fine.width, fine.height]).toEqual([2000, 10]);
  });

  it('refuses a WebP whose picture is not the canvas it declares', async () => {
    await expect(decode(webpCanvasLie([2000, 2000], [16_000, 16_000]), 'image/webp')).rejects.toThrow(
      new DamagedImage('its picture (16000×16000 px) is not the size of its canvas (2000×2000 px)'),
    );
  });
});
