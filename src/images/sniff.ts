// What an image is, told by its bytes, never by its name or URL: PNG, JPEG, GIF or WebP, and its size in pixels.

export type ImageMediaType = 'image/png' | 'image/jpeg' | 'image/gif' | 'image/webp';

export interface ImageKind {
  mediaType: ImageMediaType;
  width: number;
  height: number;
}

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

const startsWith = (bytes: Uint8Array, prefix: readonly number[], at = 0): boolean =>
  prefix.every((byte, index) => bytes[at + index] === byte);
const ascii = (bytes: Uint8Array, at: number, length: number): string =>
  String.fromCharCode(...bytes.subarray(at, at + length));
const u16be = (b: Uint8Array, at: number) => ((b[at] ?? 0) << 8) | (b[at + 1] ?? 0);
const u16le = (b: Uint8Array, at: number) => (b[at] ?? 0) | ((b[at + 1] ?? 0) << 8);
const u24le = (b: Uint8Array, at: number) => u16le(b, at) | ((b[at + 2] ?? 0) << 16);
const u32be = (b: Uint8Array, at: number) => ((u16be(b, at) << 16) >>> 0) + u16be(b, at + 2);

/** The format its first 12 bytes announce, before anything else is read (a file may be text after all). */
export function imageMagic(head: Uint8Array): ImageMediaType | undefined {
  if (startsWith(head, PNG_SIGNATURE)) return 'image/png';
  if (startsWith(head, [0xff, 0xd8, 0xff])) return 'image/jpeg';
  if (ascii(head, 0, 4) === 'GIF8') return 'image/gif';
  if (ascii(head, 0, 4) === 'RIFF' && ascii(head, 8, 4) === 'WEBP') return 'image/webp';
  return undefined;
}

/** The image's kind and size, or undefined when the bytes are none of the four formats (or are cut short). */
export function sniffImage(bytes: Uint8Array): ImageKind | undefined {
  const kind = sniffPng(bytes) ?? sniffJpeg(bytes) ?? sniffGif(bytes) ?? sniffWebp(bytes);
  return kind && kind.width > 0 && kind.height > 0 ? kind : undefined;
}

function sniffPng(b: Uint8Array): ImageKind | undefined {
  if (b.length < 24 || !startsWith(b, PNG_SIGNATURE) || ascii(b, 12, 4) !== 'IHDR') return undefined;
  return { mediaType: 'image/png', width: u32be(b, 16), height: u32be(b, 20) };
}

function sniffGif(b: Uint8Array): ImageKind | undefined {
  const magic = ascii(b, 0, 6);
  if (b.length < 10 || (magic !== 'GIF87a' && magic !== 'GIF89a')) return undefined;
  return { mediaType: 'image/gif', width: u16le(b, 6), height: u16le(b, 8) };
}

/** The frame header (SOF0..SOF15 but DHT, JPG and DAC) holds the size; segments before it are skipped. */
function sniffJpeg(b: Uint8Array): ImageKind | undefined {
  if (b[0] !== 0xff || b[1] !== 0xd8 || b[2] !== 0xff) return undefined;
  let at = 2;
  while (at + 9 < b.length) {
    if (b[at] !== 0xff) return undefined;
    const marker = b[at + 1] ?? 0;
    if (marker === 0xff) {
      at++; // fill byte
      continue;
    }
    const isFrame = marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
    if (isFrame) return { mediaType: 'image/jpeg', width: u16be(b, at + 7), height: u16be(b, at + 5) };
    at += 2 + u16be(b, at + 2);
  }
  return undefined;
}

function sniffWebp(b: Uint8Array): ImageKind | undefined {
  if (b.length < 30 || ascii(b, 0, 4) !== 'RIFF' || ascii(b, 8, 4) !== 'WEBP') return undefined;
  if (ascii(b, 12, 4) === 'VP8X')
    return { mediaType: 'image/webp', width: u24le(b, 24) + 1, height: u24le(b, 27) + 1 };
  const frame = webpBitstreamSize(b, 12);
  return frame && { mediaType: 'image/webp', ...frame };
}

/** The size the bitstream chunk (`VP8 ` or `VP8L`) at `at` declares, in its own header. */
function webpBitstreamSize(b: Uint8Array, at: number): { width: number; height: number } | undefined {
  const chunk = ascii(b, at, 4);
  const data = at + 8;
  if (chunk === 'VP8L' && b[data] === 0x2f) {
    const bits = u16le(b, data + 1) | (u16le(b, data + 3) << 16);
    return { width: (bits & 0x3fff) + 1, height: ((bits >>> 14) & 0x3fff) + 1 };
  }
  if (chunk === 'VP8 ' && startsWith(b, [0x9d, 0x01, 0x2a], data + 3))
    return { width: u16le(b, data + 6) & 0x3fff, height: u16le(b, data + 8) & 0x3fff };
  return undefined;
}

/**
 * The size a still WebP's bitstream declares, which may differ from the canvas its VP8X header declares: the
 * first `VP8 ` or `VP8L` chunk's. Undefined when it has none (an animation's frames sit in ANMF chunks).
 */
export function webpFrameSize(b: Uint8Array): { width: number; height: number } | undefined {
  for (let at = 12; at + 8 <= b.length;) {
    const chunk = ascii(b, at, 4);
    if (chunk === 'VP8 ' || chunk === 'VP8L') return webpBitstreamSize(b, at);
    const length = u16le(b, at + 4) + u16le(b, at + 6) * 0x10000;
    at += 8 + length + (length % 2); // chunks are padded to an even length
  }
  return undefined;
}
