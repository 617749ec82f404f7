// Pixels in and out of the formats the model reads: PNG (pngjs), JPEG (jpeg-js) and GIF's first frame
// (omggif), all pure JavaScript, and WebP (libwebp in WebAssembly, ./webp.ts). Out comes PNG or JPEG.
import jpeg from 'jpeg-js';
import { GifReader } from 'omggif';
import { PNG } from 'pngjs';
import type { Pixels } from './scale.js';
import type { ImageMediaType } from './sniff.js';
import { decodeWebp } from './webp.js';

/** The most pixels decoded at once: 8,000 × 8,000, the largest image the API takes. */
export const MAX_DECODE_PIXELS = 64_000_000;

/** RGBA pixels of the image (a GIF's first frame); throws when the bytes are not what they claim. */
export async function decode(bytes: Uint8Array, mediaType: ImageMediaType): Promise<Pixels> {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  switch (mediaType) {
    case 'image/png': {
      const png = PNG.sync.read(buffer);
      return { width: png.width, height: png.height, data: png.data };
    }
    case 'image/jpeg': {
      const image = jpeg.decode(buffer, {
        useTArray: true,
        formatAsRGBA: true,
        maxResolutionInMP: MAX_DECODE_PIXELS / 1_000_000,
        maxMemoryUsageInMB: 1024,
      });
      return { width: image.width, height: image.height, data: image.data };
    }
    case 'image/gif': {
      const gif = new GifReader(buffer);
      const data = new Uint8Array(gif.width * gif.height * 4);
      gif.decodeAndBlitFrameRGBA(0, data);
      return { width: gif.width, height: gif.height, data };
    }
    case 'image/webp':
      return await decodeWebp(bytes);
  }
}

export function encodePng(pixels: Pixels): Uint8Array {
  const png = new PNG({ width: pixels.width, height: pixels.height });
  png.data = Buffer.from(pixels.data.buffer, pixels.data.byteOffset, pixels.data.byteLength);
  return PNG.sync.write(png, { colorType: 6 });
}

/** JPEG has no transparency: transparent pixels are laid over white first, as a viewer would show them. */
export function encodeJpeg(pixels: Pixels, quality: number): Uint8Array {
  const data = new Uint8Array(pixels.data.length);
  for (let i = 0; i < data.length; i += 4) {
    const alpha = pixels.data[i + 3]! / 255;
    for (let c = 0; c < 3; c++) data[i + c] = Math.round(pixels.data[i + c]! * alpha + 255 * (1 - alpha));
    data[i + 3] = 255;
  }
  return jpeg.encode({ width: pixels.width, height: pixels.height, data }, quality).data;
}
