// The scripted model server reads the size of every format the API takes, from real files made here.
import jpeg from 'jpeg-js';
import { PNG } from 'pngjs';
import { describe, expect, it } from 'vitest';
import { webp } from '../webp.js';
import { formatOf, sizeOf } from './image-size.js';

const rgba = (width: number, height: number, alpha = 255) => {
  const data = new Uint8Array(width * height * 4);
  for (let i = 0; i < data.length; i += 4) data.set([i % 251, (i >> 8) % 251, 90, alpha], i);
  return data;
};
const jpg = (width: number, height: number) =>
  Buffer.from(jpeg.encode({ width, height, data: rgba(width, height) }, 80).data);
const measure = (bytes: Buffer) => {
  const format = formatOf(bytes);
  return { format, size: format ? sizeOf(bytes, format) : undefined };
};

/** A JPEG's first segments, laid out by hand: SOI, APP1 (300 bytes), fill bytes, then a frame header. */
function jpegHead(sof: number, width: number, height: number): Buffer {
  const app1 = Buffer.alloc(300); // the length counts its own 2 bytes
  app1.writeUInt16BE(300, 0);
  const frame = Buffer.from([0x00, 0x11, 0x08, 0, 0, 0, 0, 0x03, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1]);
  frame.writeUInt16BE(height, 3);
  frame.writeUInt16BE(width, 5);
  return Buffer.concat([
    Buffer.from([0xff, 0xd8, 0xff, 0xe1]),
    app1,
    Buffer.from([0xff, 0xff, 0xff, sof]), // two fill bytes before the marker
    frame,
  ]);
}

describe('image header sizes', () => {
  it('reads PNG and GIF', () => {
    expect(measure(PNG.sync.write(new PNG({ width: 37, height: 5 })))).toEqual({
      format: 'image/png',
      size: { width: 37, height: 5 },
    });
    const gif = Buffer.from('GIF89a\x2c\x01\x07\x00\x00\x00\x00', 'latin1');
    expect(measure(gif)).toEqual({ format: 'image/gif', size: { width: 300, height: 7 } });
  });

  it('reads a JPEG from its frame header, past the segments before it', () => {
    // jpeg-js writes JFIF (APP0), tables, then SOF0: width and height are not at a fixed place.
    expect(measure(jpg(123, 45))).toEqual({ format: 'image/jpeg', size: { width: 123, height: 45 } });
    expect(measure(jpg(8001, 1)).size).toEqual({ width: 8001, height: 1 });
    // Progressive (SOF2) after EXIF and fill bytes.
    expect(measure(jpegHead(0xc2, 4032, 3024)).size).toEqual({ width: 4032, height: 3024 });
    // DHT (C4) is no frame header: its bytes are skipped, not read as a size.
    const dhtFirst = Buffer.concat([
      Buffer.from([0xff, 0xd8, 0xff, 0xc4, 0x00, 0x06, 0x09, 0x09, 0x09, 0x09]),
      jpegHead(0xc0, 640, 480).subarray(2),
    ]);
    expect(measure(dhtFirst).size).toEqual({ width: 640, height: 480 });
  });

  it('has no JPEG size when the scan or the end comes before any frame header, or the bytes stop', () => {
    expect(sizeOf(Buffer.from([0xff, 0xd8, 0xff, 0xda, 0x00, 0x08, 1, 2, 3, 4, 5, 6]), 'image/jpeg')).toBe(
      undefined,
    );
    expect(sizeOf(Buffer.from([0xff, 0xd8, 0xff, 0xd9]), 'image/jpeg')).toBeUndefined();
    expect(sizeOf(jpegHead(0xc0, 640, 480).subarray(0, 310), 'image/jpeg')).toBeUndefined();
    expect(sizeOf(Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x41]), 'image/jpeg')).toBeUndefined();
  });

  it('reads lossy (VP8), lossless (VP8L) and extended (VP8X) WebP made by libwebp', async () => {
    const lossy = await webp(301, 17, rgba(301, 17));
    expect(lossy.subarray(12, 16).toString('latin1')).toBe('VP8 ');
    expect(measure(lossy)).toEqual({ format: 'image/webp', size: { width: 301, height: 17 } });

    const lossless = await webp(8001, 2, rgba(8001, 2), { lossless: true });
    expect(lossless.subarray(12, 16).toString('latin1')).toBe('VP8L');
    expect(measure(lossless).size).toEqual({ width: 8001, height: 2 });

    // Lossy with transparency: the alpha goes in its own chunk, announced by a VP8X header.
    const translucent = await webp(2001, 3, rgba(2001, 3, 128));
    expect(translucent.subarray(12, 16).toString('latin1')).toBe('VP8X');
    expect(measure(translucent).size).toEqual({ width: 2001, height: 3 });
  });

  it('has no WebP size when the chunk is not one it knows or is cut short', async () => {
    const lossy = await webp(10, 10, rgba(10, 10));
    expect(sizeOf(lossy.subarray(0, 25), 'image/webp')).toBeUndefined();
    const broken = Buffer.from(lossy);
    broken[23] = 0; // no start code
    expect(sizeOf(broken, 'image/webp')).toBeUndefined();
    const unknown = Buffer.from(lossy);
    unknown.write('ABCD', 12, 'latin1');
    expect(sizeOf(unknown, 'image/webp')).toBeUndefined();
  });
});
