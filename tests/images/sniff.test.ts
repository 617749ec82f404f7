// What an image is, told by its bytes (src/images/sniff.ts): the bytes come from issues and tool output, so
// the sniffer must answer every file of the four formats truly and any other bytes with undefined, never a
// throw, a hang or a size of zero.
import { describe, expect, it } from 'vitest';
import { imageMagic, sniffImage, webpFrameSize } from '../../src/images/sniff.js';
import { jpegClaiming, webpCanvasLie } from '../support/hostile-images.js';
import { gif, jpg, png, rgba, webpHeader } from '../support/pictures.js';
import { webp } from '../support/webp.js';

/** Where marker `marker` (0xFF then it) first stands in a JPEG. */
const markerAt = (bytes: Uint8Array, marker: number) =>
  Buffer.from(bytes).indexOf(Buffer.from([0xff, marker]));

/** A deterministic run of bytes (a linear congruential generator), so that a failure can be run again. */
function noise(seed: number, length: number): Uint8Array {
  const out = new Uint8Array(length);
  let state = seed;
  for (let i = 0; i < length; i++) {
    state = (state * 1103515245 + 12345) >>> 0;
    out[i] = state >>> 24;
  }
  return out;
}

describe('sniffImage', () => {
  it('tells the four formats and their sizes by their bytes', () => {
    expect(sniffImage(png(30, 20))).toEqual({ mediaType: 'image/png', width: 30, height: 20 });
    expect(sniffImage(jpg(33, 21))).toEqual({ mediaType: 'image/jpeg', width: 33, height: 21 });
    expect(sniffImage(gif(7, 5))).toEqual({ mediaType: 'image/gif', width: 7, height: 5 });
    expect(sniffImage(webpHeader(4000, 3000))).toEqual({
      mediaType: 'image/webp',
      width: 4000,
      height: 3000,
    });
  });

  it('knows nothing else, and nothing cut before its size', () => {
    expect(sniffImage(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>'))).toBeUndefined();
    expect(sniffImage(png(10, 10).subarray(0, 20))).toBeUndefined();
    expect(imageMagic(Buffer.from('GIF89a'))).toBe('image/gif');
    expect(imageMagic(Buffer.from('hello world!'))).toBeUndefined();
  });

  it("reads a still WebP's picture size from its bitstream, beside the canvas its VP8X header declares", () => {
    const lie = webpCanvasLie([2000, 2000], [16_000, 300]);
    expect(sniffImage(lie)).toEqual({ mediaType: 'image/webp', width: 2000, height: 2000 });
    expect(webpFrameSize(lie)).toEqual({ width: 16_000, height: 300 });
    expect(webpFrameSize(webpHeader(40, 30))).toBeUndefined(); // no bitstream at all
  });
});

describe('sniffImage on real files of each encoding', () => {
  it('reads a lossy (VP8) and a lossless (VP8L) WebP that libwebp wrote', async () => {
    const pixels = rgba(37, 23, (x, y) => [x * 6, y * 9, 30, 255]);
    for (const lossless of [false, true]) {
      const bytes = await webp(37, 23, pixels, { lossless });
      expect(sniffImage(bytes)).toEqual({ mediaType: 'image/webp', width: 37, height: 23 });
      expect(webpFrameSize(bytes)).toEqual({ width: 37, height: 23 });
    }
  });

  it('reads a GIF87a as well as a GIF89a', () => {
    const bytes = Buffer.from(gif(9, 4));
    bytes.write('GIF87a', 0, 'latin1');
    expect(sniffImage(bytes)).toEqual({ mediaType: 'image/gif', width: 9, height: 4 });
  });

  it('reads a PNG size as unsigned, however large its header claims it is', () => {
    const bytes = Buffer.from(png(2, 2));
    bytes.writeUInt32BE(0xffff_ffff, 16);
    expect(sniffImage(bytes)).toEqual({ mediaType: 'image/png', width: 0xffff_ffff, height: 2 });
  });
});

describe('sniffImage on hostile JPEG segments', () => {
  it('skips fill bytes before a marker, and segments before the frame header', () => {
    const bytes = Buffer.from(jpg(40, 30));
    const sof = markerAt(bytes, 0xc0);
    // Fill bytes (0xFF repeated) may precede any marker.
    const filled = Buffer.concat([
      bytes.subarray(0, sof),
      Buffer.from([0xff, 0xff, 0xff]),
      bytes.subarray(sof),
    ]);
    expect(sniffImage(filled)).toEqual({ mediaType: 'image/jpeg', width: 40, height: 30 });
  });

  it('takes a progressive frame header (SOF2), never a Huffman table (DHT) before it, for the size', () => {
    const bytes = Buffer.from(jpg(40, 30));
    bytes[markerAt(bytes, 0xc0) + 1] = 0xc2;
    expect(sniffImage(bytes)).toEqual({ mediaType: 'image/jpeg', width: 40, height: 30 });
    // With its frame header renamed a DHT (0xC4), the file has no frame header the sniffer may read.
    const noFrame = Buffer.from(jpg(40, 30));
    noFrame[markerAt(noFrame, 0xc0) + 1] = 0xc4;
    expect(sniffImage(noFrame)).toBeUndefined();
  });

  it('answers undefined to a segment whose length leads past the end, or to bytes that are no marker', () => {
    const bytes = Buffer.from(jpg(40, 30));
    const first = 2; // the segment after SOI
    const pastEnd = Buffer.from(bytes);
    pastEnd.writeUInt16BE(0xffff, first + 2);
    expect(sniffImage(pastEnd)).toBeUndefined();
    const stray = Buffer.from(bytes);
    stray.writeUInt16BE(2, first + 2); // the next "marker" is the segment's own data
    stray[first + 4] = 0x00;
    expect(sniffImage(stray)).toBeUndefined();
  });

  it('refuses a frame header that claims no pixels, and believes one that claims many (decoding checks them)', () => {
    expect(sniffImage(jpegClaiming(0, 30))).toBeUndefined();
    expect(sniffImage(jpegClaiming(65_000, 65_000))).toEqual({
      mediaType: 'image/jpeg',
      width: 65_000,
      height: 65_000,
    });
  });
});

describe('webpFrameSize', () => {
  it('steps over chunks before the bitstream, an odd-length one padded to an even length', () => {
    const lie = webpCanvasLie([100, 100], [640, 480]);
    // An ICCP chunk of 3 bytes and its padding byte, between VP8X (at 12, 18 bytes) and VP8L.
    const iccp = Buffer.concat([Buffer.from('ICCP', 'latin1'), Buffer.from([3, 0, 0, 0, 1, 2, 3, 0])]);
    const bytes = Buffer.concat([lie.subarray(0, 30), iccp, lie.subarray(30)]);
    expect(webpFrameSize(bytes)).toEqual({ width: 640, height: 480 });
    // Without the padding byte the next chunk's name is read one byte off, and no bitstream is found.
    const unpadded = Buffer.concat([lie.subarray(0, 30), iccp.subarray(0, 11), lie.subarray(30)]);
    expect(webpFrameSize(unpadded)).toBeUndefined();
  });

  it('answers undefined to a chunk whose length leads past the end', () => {
    const bytes = Buffer.from(webpCanvasLie([100, 100], [640, 480]));
    bytes.writeUInt32LE(0x7fff_ffff, 16); // VP8X's length
    expect(webpFrameSize(bytes)).toBeUndefined();
  });
});

describe('sniffImage on noise', () => {
  const prefixes: Record<string, number[]> = {
    png: [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a],
    jpeg: [0xff, 0xd8, 0xff],
    gif: [...Buffer.from('GIF89a', 'latin1')],
    webp: [...Buffer.from('RIFF\0\0\0\0WEBP', 'latin1')],
  };

  it.each(Object.entries(prefixes))(
    'never throws on a %s magic followed by noise, and any size it reads is at least 1 × 1',
    (_name, prefix) => {
      for (let seed = 1; seed <= 400; seed++) {
        const bytes = Buffer.concat([Buffer.from(prefix), noise(seed, seed % 97)]);
        const kind = sniffImage(bytes);
        if (kind) expect(Math.min(kind.width, kind.height)).toBeGreaterThanOrEqual(1);
        expect(() => webpFrameSize(bytes)).not.toThrow();
      }
      expect(
        imageMagic(Buffer.from(prefix.length >= 12 ? prefix : [...prefix, 0, 0, 0, 0, 0, 0, 0, 0, 0])),
      ).toMatch(/^image\//);
    },
  );
});
