// Pixels in and out of the formats the model reads: PNG (pngjs, ./png.ts), JPEG (jpeg-js) and GIF's first
// frame (omggif), all pure JavaScript, and WebP (libwebp in WebAssembly, ./webp.ts). Out comes PNG or JPEG.
// Each decoder is held to what the image declares before it inflates anything, and all of them run in the
// decoder's own process (./decoder.ts), whose memory has a hard limit.
import jpeg from 'jpeg-js';
import { GifReader } from 'omggif';
import { PNG } from 'pngjs';
import { DamagedImage, DECODER_MEMORY_MB, MAX_DECODE_PIXELS } from '../fitted.js';
import { decodePng } from './png.js';
import type { Pixels } from './scale.js';
import { sniffImage, webpFrameSize, type ImageMediaType } from '../sniff.js';
import { decodeWebp } from './webp.js';

/** What jpeg-js may allocate: below the process's limit, so that it refuses an image with its own reason. */
const JPEG_MEMORY_MB = Math.floor(DECODER_MEMORY_MB * 0.75);

/** RGBA pixels of the image (a GIF's first frame); throws when the bytes are not what they claim. */
export async function decode(bytes: Uint8Array, mediaType: ImageMediaType): Promise<Pixels> {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  switch (mediaType) {
    case 'image/png':
      return await decodePng(buffer);
    case 'image/jpeg': {
      const image = jpeg.decode(buffer, {
        useTArray: true,
        formatAsRGBA: true,
        maxResolutionInMP: MAX_DECODE_PIXELS / 1_000_000,
        maxMemoryUsageInMB: JPEG_MEMORY_MB,
      });
      return { width: image.width, height: image.height, data: image.data };
    }
    case 'image/gif': {
      const gif = new GifReader(buffer);
      // omggif sizes the frame from its own descriptor: one larger than the screen (or outside it) would
      // allocate what the screen size, the size that was checked, never allowed.
      const frame = gif.frameInfo(0);
      if (frame.x + frame.width > gif.width || frame.y + frame.height > gif.height)
        throw new DamagedImage(
          `its first frame (${frame.width}×${frame.height} px at ${frame.x},${frame.y}) lies outside its ${gif.width}×${gif.height} px screen`,
        );
      const data = new Uint8Array(gif.width * gif.height * 4);
      gif.decodeAndBlitFrameRGBA(0, data);
      return { width: gif.width, height: gif.height, data };
    }
    case 'image/webp': {
      // libwebp decodes the bitstream's own size: it must be the canvas whose size was checked.
      const canvas = sniffImage(bytes);
      const frame = webpFrameSize(bytes);
      if (frame && (frame.width !== canvas?.width || frame.height !== canvas.height))
        throw new DamagedImage(
          `its picture (${frame.width}×${frame.height} px) is not the size of its canvas (${canvas?.width}×${canvas?.height} px)`,
        );
      return await decodeWebp(bytes);
    }
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
