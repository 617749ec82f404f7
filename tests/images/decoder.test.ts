// Pictures are decoded in a process of their own, with a hard memory limit: an image that needs more fails
// there, and is skipped with the reason, while this process goes on.
import { describe, expect, it } from 'vitest';
import { decodeInChildProcess } from '../../src/images/decoder.js';
import { DECODER_MEMORY_MB } from '../../src/images/fitted.js';
import { jpegClaiming, pngBomb } from '../support/hostile-images.js';

const TOO_LARGE = { skipped: `too large to decode within ${DECODER_MEMORY_MB / 1024} GB of memory` };

describe('decodeInChildProcess', () => {
  it('skips a 618-byte JPEG that claims 8,000 × 8,000 px, past the cap jpeg-js is held to as well', async () => {
    const bytes = jpegClaiming(8000, 8000);
    expect(bytes.length).toBeLessThan(1000);
    const before = process.memoryUsage().rss;
    const decoded = await decodeInChildProcess(bytes);
    expect(decoded.fit).toEqual({ skipped: 'too large to scale (8000×8000 px; the most is 25 megapixels)' });
    // The memory went (and was refused) in the decoder's process, not here.
    expect(process.memoryUsage().rss - before).toBeLessThan(200 * 1024 * 1024);
  });

  it('skips an honest PNG too large to decode within the limit, and says how large it was', async () => {
    // 8,000 × 8,000 px of 16-bit RGBA: 512 MB of pixel data, exactly what the header declares.
    const huge = await pngBomb({
      width: 8000,
      height: 8000,
      inflatedBytes: (8000 * 8 + 1) * 8000,
      interlaced: false,
      bitDepth: 16,
    });
    const decoded = await decodeInChildProcess(huge);
    expect(decoded.fit).toEqual(TOO_LARGE);
    expect(decoded.peakRssKb).toBeLessThan(DECODER_MEMORY_MB * 1024 + 100 * 1024);
  });

  it('answers with the fitted image and what the decoding took', async () => {
    const bomb = await pngBomb({ width: 2000, height: 2000, inflatedBytes: 64 * 1024 * 1024 });
    const decoded = await decodeInChildProcess(bomb);
    expect(decoded.fit).toMatchObject({ skipped: expect.stringContaining('inflates past') });
    expect(decoded.peakRssKb).toBeGreaterThan(0);
    expect(decoded.ms).toBeGreaterThan(0);
  });

  it('stops a decode the caller gave up on, and one not yet started is not started', async () => {
    const bytes = jpegClaiming(8000, 8000);
    const controller = new AbortController();
    const first = decodeInChildProcess(bytes, { signal: controller.signal });
    const second = decodeInChildProcess(bytes, { signal: controller.signal });
    controller.abort(new Error('the run was cancelled'));
    expect((await first).fit).toEqual({ skipped: 'not decoded: the run was cancelled' });
    expect(await second).toMatchObject({ fit: { skipped: 'not decoded: the run was cancelled' } });
    expect((await second).peakRssKb).toBeUndefined();
  });
});
