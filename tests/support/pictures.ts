// Small pictures made with the real codecs, for the tests of what reads them: RGBA pixels, a PNG, a JPEG, a
// one-frame GIF, and a WebP header that names its canvas and nothing after it.
import jpeg from 'jpeg-js';
import { GifWriter } from 'omggif';
import { PNG } from 'pngjs';

/** `width` × `height` RGBA pixels, each one `pixel(x, y)`. */
export function rgba(width: number, height: number, pixel: (x: number, y: number) => number[]): Uint8Array {
  const data = new Uint8Array(width * height * 4);
  for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) data.set(pixel(x, y), (y * width + x) * 4);
  return data;
}

/** A PNG of `width` × `height`, its pixels a gradient unless `pixel` says otherwise. */
export function png(
  width: number,
  height: number,
  pixel = (x: number, y: number) => [x % 256, y % 256, 90, 255],
) {
  const image = new PNG({ width, height });
  image.data = Buffer.from(rgba(width, height, pixel));
  return PNG.sync.write(image);
}

/** A JPEG of `width` × `height` (quality 90). */
export const jpg = (width: number, height: number) =>
  jpeg.encode({ width, height, data: rgba(width, height, (x, y) => [x % 256, y % 256, 40, 255]) }, 90).data;

/** A GIF of one frame, `width` × `height`, in two colours. */
export function gif(width: number, height: number): Uint8Array {
  const buffer = new Uint8Array(width * height + 1024);
  const writer = new GifWriter(buffer, width, height, { palette: [0x000000, 0xff0000] });
  writer.addFrame(
    0,
    0,
    width,
    height,
    Array.from({ length: width * height }, (_, i) => i % 2),
  );
  return buffer.subarray(0, writer.end());
}

/** A WebP header (VP8X: canvas size in the chunk) with nothing after it: enough to be recognised. */
export function webpHeader(width: number, height: number): Uint8Array {
  const b = Buffer.alloc(30);
  b.write('RIFF', 0, 'latin1');
  b.writeUInt32LE(22, 4);
  b.write('WEBPVP8X', 8, 'latin1');
  b.writeUInt32LE(10, 16);
  b.writeUIntLE(width - 1, 24, 3);
  b.writeUIntLE(height - 1, 27, 3);
  return b;
}
