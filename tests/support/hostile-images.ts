// Pictures made to hurt whoever decodes them, for the tests and the bench: each is what a stranger could put in
// a comment, or a model in the workspace, and each claims less (or other) than its data holds.
import { createDeflate, crc32 } from 'node:zlib';
import jpeg from 'jpeg-js';
import { GifWriter } from 'omggif';

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

function pngChunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])));
  return Buffer.concat([head, data, crc]);
}

/** `bytes` zero bytes through zlib at its best compression (about 1,000 to 1), fed a megabyte at a time. */
async function deflatedZeros(bytes: number): Promise<Buffer> {
  const deflate = createDeflate({ level: 9 });
  const out: Buffer[] = [];
  deflate.on('data', (chunk: Buffer) => out.push(chunk));
  const ended = new Promise((resolve) => deflate.on('end', resolve));
  const block = Buffer.alloc(1024 * 1024);
  for (let left = bytes; left > 0; left -= block.length) {
    if (!deflate.write(block.subarray(0, Math.min(left, block.length))))
      await new Promise((resolve) => deflate.once('drain', resolve));
  }
  deflate.end();
  await ended;
  return Buffer.concat(out);
}

export interface PngBombOptions {
  width: number;
  height: number;
  /** What the pixel data inflates to, whatever the header says. */
  inflatedBytes: number;
  interlaced?: boolean;
  bitDepth?: 8 | 16;
}

/**
 * An RGBA PNG whose pixel data (all zeros) inflates to `inflatedBytes`: past what its header declares, a bomb;
 * exactly that, an honest picture that is only very large.
 */
export async function pngBomb({
  width,
  height,
  inflatedBytes,
  interlaced = true,
  bitDepth = 8,
}: PngBombOptions): Promise<Buffer> {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = bitDepth;
  header[9] = 6;
  header[12] = interlaced ? 1 : 0;
  return Buffer.concat([
    PNG_SIGNATURE,
    pngChunk('IHDR', header),
    pngChunk('IDAT', await deflatedZeros(inflatedBytes)),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

/** The bytes a non-interlaced RGBA PNG's pixel data inflates to: each row and its filter byte. */
export const rgbaRows = (width: number, height: number, bitDepth: 8 | 16 = 8): number =>
  (width * 4 * (bitDepth / 8) + 1) * height;

/**
 * A GIF whose screen is `screen` but whose first frame's descriptor claims `frame` (omggif sizes the frame's
 * buffer from the descriptor: 60,000 × 60,000 asks for 3.6 GB).
 */
export function gifFrameBomb(screen: [number, number], frame: [number, number]): Buffer {
  const [width, height] = screen;
  const buffer = Buffer.alloc(width * height + 1024);
  const writer = new GifWriter(buffer, width, height, { palette: [0x000000, 0xffffff] });
  writer.addFrame(0, 0, width, height, new Array<number>(width * height).fill(0));
  const gif = buffer.subarray(0, writer.end());
  // The image descriptor: 0x2c, then x, y, width and height (16 bits each, little-endian).
  const at = gif.indexOf(0x2c, 13 + 6);
  gif.writeUInt16LE(frame[0], at + 5);
  gif.writeUInt16LE(frame[1], at + 7);
  return gif;
}

/** A baseline JPEG of a few pixels whose frame header (SOF0) then claims `width` × `height`. */
export function jpegClaiming(width: number, height: number): Buffer {
  const data = new Uint8Array(16 * 16 * 4).fill(128);
  const bytes = Buffer.from(jpeg.encode({ width: 16, height: 16, data }, 80).data);
  const sof = bytes.indexOf(Buffer.from([0xff, 0xc0]));
  bytes.writeUInt16BE(height, sof + 5);
  bytes.writeUInt16BE(width, sof + 7);
  return bytes;
}

/** A WebP whose VP8X canvas is `canvas` but whose lossless bitstream (VP8L) declares `picture`. */
export function webpCanvasLie(canvas: [number, number], picture: [number, number]): Buffer {
  const vp8x = Buffer.alloc(18);
  vp8x.write('VP8X', 0, 'latin1');
  vp8x.writeUInt32LE(10, 4);
  vp8x.writeUIntLE(canvas[0] - 1, 12, 3);
  vp8x.writeUIntLE(canvas[1] - 1, 15, 3);
  const vp8l = Buffer.alloc(8 + 6);
  vp8l.write('VP8L', 0, 'latin1');
  vp8l.writeUInt32LE(6, 4);
  vp8l[8] = 0x2f;
  vp8l.writeUInt32LE(((picture[0] - 1) & 0x3fff) | (((picture[1] - 1) & 0x3fff) << 14), 9);
  const body = Buffer.concat([Buffer.from('WEBP', 'latin1'), vp8x, vp8l]);
  const riff = Buffer.alloc(8);
  riff.write('RIFF', 0, 'latin1');
  riff.writeUInt32LE(body.length, 4);
  return Buffer.concat([riff, body]);
}
