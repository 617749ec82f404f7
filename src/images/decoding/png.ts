// A PNG's pixels, decoded only as far as its header allows. pngjs inflates an interlaced image with no limit
// on the output, so a file of half a megabyte can inflate to gigabytes; here the pixel data is inflated first,
// counted and thrown away as it comes, and a PNG whose data runs past the size its header declares is refused
// there, before pngjs reads it (pngjs then inflates the same data, to no more than that size).
import { createInflate } from 'node:zlib';
import { PNG } from 'pngjs';
import { DamagedImage } from '../fitted.js';
import type { Pixels } from './scale.js';

/** Channels per colour type, and the bit depths each allows (the PNG specification, table 11.1). */
const COLOR_TYPES: Record<number, { channels: number; depths: readonly number[] }> = {
  0: { channels: 1, depths: [1, 2, 4, 8, 16] },
  2: { channels: 3, depths: [8, 16] },
  3: { channels: 1, depths: [1, 2, 4, 8] },
  4: { channels: 2, depths: [8, 16] },
  6: { channels: 4, depths: [8, 16] },
};

/** Adam7's seven passes: where each starts and how far it steps, across and down. */
const ADAM7 = [
  [0, 0, 8, 8],
  [4, 0, 8, 8],
  [0, 4, 4, 8],
  [2, 0, 4, 4],
  [0, 2, 2, 4],
  [1, 0, 2, 2],
  [0, 1, 1, 2],
] as const;

const SIGNATURE_BYTES = 8;

/** What the header (IHDR) declares. */
export interface PngHeader {
  width: number;
  height: number;
  bitDepth: number;
  colorType: number;
  interlaced: boolean;
}

/** The IHDR of `bytes`, checked against the specification; throws on anything else. */
export function pngHeader(bytes: Buffer): PngHeader {
  if (bytes.length < SIGNATURE_BYTES + 25 || bytes.toString('latin1', 12, 16) !== 'IHDR')
    throw new DamagedImage('no header');
  const at = SIGNATURE_BYTES + 8;
  const header = {
    width: bytes.readUInt32BE(at),
    height: bytes.readUInt32BE(at + 4),
    bitDepth: bytes[at + 8]!,
    colorType: bytes[at + 9]!,
    interlaced: bytes[at + 12] === 1,
  };
  const type = COLOR_TYPES[header.colorType];
  const valid =
    header.width > 0 &&
    header.height > 0 &&
    header.width < 2 ** 31 &&
    header.height < 2 ** 31 &&
    type?.depths.includes(header.bitDepth) === true &&
    bytes[at + 10] === 0 &&
    bytes[at + 11] === 0 &&
    bytes[at + 12]! <= 1;
  if (!valid) throw new DamagedImage('an invalid header');
  return header;
}

/** The bytes the pixel data inflates to, by the header: each row (of each pass) with its filter byte. */
export function inflatedSize({ width, height, bitDepth, colorType, interlaced }: PngHeader): number {
  const bits = COLOR_TYPES[colorType]!.channels * bitDepth;
  const rows = (w: number, h: number) => (w > 0 && h > 0 ? (Math.ceil((w * bits) / 8) + 1) * h : 0);
  if (!interlaced) return rows(width, height);
  return ADAM7.reduce(
    (sum, [x, y, dx, dy]) => sum + rows(Math.ceil((width - x) / dx), Math.ceil((height - y) / dy)),
    0,
  );
}

/** The image data (every IDAT chunk's, in order), its chunks' lengths checked against the file. */
function imageData(bytes: Buffer): Buffer {
  const parts: Buffer[] = [];
  let at = SIGNATURE_BYTES;
  while (at + 12 <= bytes.length) {
    const length = bytes.readUInt32BE(at);
    const type = bytes.toString('latin1', at + 4, at + 8);
    const end = at + 12 + length;
    if (end > bytes.length) throw new DamagedImage('a chunk cut short');
    if (type === 'IDAT') parts.push(bytes.subarray(at + 8, at + 8 + length));
    if (type === 'IEND') break;
    at = end;
  }
  if (parts.length === 0) throw new DamagedImage('no image data');
  return Buffer.concat(parts);
}

/**
 * Rejects once `data` has inflated past `declared` bytes, holding no more than one chunk of the output at a
 * time. Data that does not inflate cleanly is left for pngjs to judge: only the size is checked here.
 */
function inflatesWithin(data: Buffer, declared: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const inflate = createInflate();
    let total = 0;
    inflate.on('data', (chunk: Buffer) => {
      total += chunk.length;
      if (total <= declared) return;
      inflate.destroy();
      const bytes = declared.toLocaleString('en-US');
      reject(new DamagedImage(`its pixel data inflates past the ${bytes} bytes its header declares`));
    });
    inflate.on('end', resolve);
    inflate.on('error', () => resolve());
    inflate.end(data);
  });
}

/** RGBA pixels of a PNG whose pixel data inflates to no more than its header declares; throws otherwise. */
export async function decodePng(bytes: Buffer): Promise<Pixels> {
  const header = pngHeader(bytes);
  await inflatesWithin(imageData(bytes), inflatedSize(header));
  const png = PNG.sync.read(bytes);
  return { width: png.width, height: png.height, data: png.data };
}
