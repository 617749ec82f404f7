// What an image block's bytes are and how many pixels they hold, read from the file headers the way the
// API must before it checks an image's dimensions: PNG (IHDR), GIF (logical screen), JPEG (the SOF frame
// header) and WebP (its VP8, VP8L or VP8X chunk). Written apart from the action's own sniffer
// (src/images/sniff.ts) so that a bug there is not copied here and hidden.

export type ImageFormat = 'image/png' | 'image/jpeg' | 'image/gif' | 'image/webp';

export interface PixelSize {
  width: number;
  height: number;
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const latin1 = (bytes: Buffer, from: number, length: number): string =>
  bytes.subarray(from, from + length).toString('latin1');

/** The format the bytes announce, by their first bytes alone. */
export function formatOf(bytes: Buffer): ImageFormat | undefined {
  if (bytes.subarray(0, 8).equals(PNG_SIGNATURE)) return 'image/png';
  if (bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'image/jpeg';
  if (latin1(bytes, 0, 4) === 'GIF8') return 'image/gif';
  if (latin1(bytes, 0, 4) === 'RIFF' && latin1(bytes, 8, 4) === 'WEBP') return 'image/webp';
  return undefined;
}

/** The size in pixels the header states, or undefined when the header is cut short or malformed. */
export function sizeOf(bytes: Buffer, format: ImageFormat): PixelSize | undefined {
  switch (format) {
    case 'image/png':
      // The IHDR chunk must come first: length (4), type (4), then width and height, big-endian.
      if (bytes.length < 24 || latin1(bytes, 12, 4) !== 'IHDR') return undefined;
      return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
    case 'image/gif':
      if (bytes.length < 10) return undefined;
      return { width: bytes.readUInt16LE(6), height: bytes.readUInt16LE(8) };
    case 'image/jpeg':
      return jpegSize(bytes);
    case 'image/webp':
      return webpSize(bytes);
  }
}

/** Markers that stand alone, with no length after them: TEM and RST0..RST7. */
const standalone = (marker: number): boolean => marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7);
/** Start-of-frame markers C0..CF, but C4 (DHT), C8 (JPG, reserved) and CC (DAC), which hold no frame. */
const startOfFrame = (marker: number): boolean =>
  marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;

/**
 * JPEG (ITU T.81, annex B): after SOI, marker segments `FF xx` with a big-endian length that counts itself;
 * the frame header holds precision (1 byte), then height and width (2 bytes each). Scan data (SOS) or the end
 * (EOI) before a frame header means there is no size to read.
 */
function jpegSize(bytes: Buffer): PixelSize | undefined {
  let at = 2;
  while (at + 1 < bytes.length) {
    if (bytes[at] !== 0xff) return undefined;
    const marker = bytes[at + 1]!;
    if (marker === 0xff) {
      at += 1; // a fill byte before the marker
      continue;
    }
    if (standalone(marker)) {
      at += 2;
      continue;
    }
    if (marker === 0xda || marker === 0xd9) return undefined;
    if (at + 4 > bytes.length) return undefined;
    const length = bytes.readUInt16BE(at + 2);
    if (length < 2) return undefined;
    if (startOfFrame(marker)) {
      if (at + 9 > bytes.length || length < 8) return undefined;
      return { height: bytes.readUInt16BE(at + 5), width: bytes.readUInt16BE(at + 7) };
    }
    at += 2 + length;
  }
  return undefined;
}

/**
 * WebP (RFC 9649): RIFF header (12 bytes), then the first chunk's FourCC and size (8 bytes), its data at 20.
 * - `VP8 ` (lossy): a 3-byte frame tag, the start code 9D 01 2A, then 14-bit width and height, little-endian
 *   (their top 2 bits are a scale, not size).
 * - `VP8L` (lossless): the signature byte 0x2F, then width − 1 and height − 1 in 14 bits each.
 * - `VP8X` (extended): flags (1 byte), 3 reserved bytes, then canvas width − 1 and height − 1 in 24 bits each.
 */
function webpSize(bytes: Buffer): PixelSize | undefined {
  if (bytes.length < 30) return undefined;
  const chunk = latin1(bytes, 12, 4);
  if (chunk === 'VP8 ') {
    if (bytes[23] !== 0x9d || bytes[24] !== 0x01 || bytes[25] !== 0x2a) return undefined;
    return { width: bytes.readUInt16LE(26) & 0x3fff, height: bytes.readUInt16LE(28) & 0x3fff };
  }
  if (chunk === 'VP8L') {
    if (bytes[20] !== 0x2f) return undefined;
    const bits = bytes.readUInt32LE(21);
    return { width: (bits & 0x3fff) + 1, height: ((bits >>> 14) & 0x3fff) + 1 };
  }
  if (chunk === 'VP8X') return { width: bytes.readUIntLE(24, 3) + 1, height: bytes.readUIntLE(27, 3) + 1 };
  return undefined;
}
