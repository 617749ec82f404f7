// An image made fit for the model: recognised by its bytes, scaled so its long edge is at most 1,568 px (the
// vision guide's advice), and at most 5 MB once base64-encoded (the API refuses more). What cannot be made
// fit is skipped with the reason, never sent broken.
import { decode, encodeJpeg, encodePng, MAX_DECODE_PIXELS } from './codecs.js';
import { fittedSize, shrink, type Pixels } from './scale.js';
import { sniffImage, type ImageMediaType } from './sniff.js';

export type { ImageMediaType } from './sniff.js';
export { imageMagic, sniffImage } from './sniff.js';

/** The long edge the vision guide advises: larger images are scaled down by the API anyway, at a cost. */
export const MAX_EDGE = 1568;
/** The API's limit on one image's base64 data, in bytes. */
export const MAX_IMAGE_BASE64_BYTES = 5 * 1024 * 1024;
const JPEG_QUALITIES = [85, 70, 50];

export interface FittedImage {
  mediaType: ImageMediaType;
  /** Base64 of the bytes sent. */
  data: string;
  width: number;
  height: number;
  /** The size before scaling, when it was scaled. */
  scaledFrom?: { width: number; height: number };
}

export type Fit = { image: FittedImage } | { skipped: string };

const base64Length = (bytes: number): number => Math.ceil(bytes / 3) * 4;
const px = (width: number, height: number): string => `${width}×${height} px`;

export async function fitImage(bytes: Uint8Array): Promise<Fit> {
  const kind = sniffImage(bytes);
  if (!kind) return { skipped: 'not a PNG, JPEG, GIF or WebP image' };
  const { mediaType, width, height } = kind;
  const fits = Math.max(width, height) <= MAX_EDGE && base64Length(bytes.length) <= MAX_IMAGE_BASE64_BYTES;
  // An animated GIF is sent as it is when it fits: the model reads its first frame either way.
  if (fits) return { image: { mediaType, data: Buffer.from(bytes).toString('base64'), width, height } };
  if (width * height > MAX_DECODE_PIXELS) return { skipped: `too large to scale (${px(width, height)})` };
  let pixels: Pixels;
  try {
    pixels = await decode(bytes, mediaType);
  } catch {
    // libwebp's simple decoder reads still images only: an animation cannot be scaled.
    const what =
      mediaType === 'image/webp'
        ? 'an animated or damaged WebP'
        : `a damaged ${mediaType.slice(6).toUpperCase()}`;
    return { skipped: `${what} image` };
  }
  const size = fittedSize(pixels.width, pixels.height, MAX_EDGE);
  const small = shrink(pixels, size.width, size.height);
  const encoded = encodeWithin(small, mediaType === 'image/jpeg' ? 'jpeg' : 'png');
  if (!encoded) return { skipped: `over 5 MB even when scaled to ${px(size.width, size.height)}` };
  return {
    image: {
      ...encoded,
      width: small.width,
      height: small.height,
      scaledFrom: { width: pixels.width, height: pixels.height },
    },
  };
}

/** PNG stays PNG (sharp text in screenshots) unless it is too big, and so does WebP; photographs are JPEG. */
function encodeWithin(
  pixels: Pixels,
  prefer: 'png' | 'jpeg',
): { mediaType: ImageMediaType; data: string } | undefined {
  const within = (bytes: Uint8Array) => base64Length(bytes.length) <= MAX_IMAGE_BASE64_BYTES;
  if (prefer === 'png') {
    const png = encodePng(pixels);
    if (within(png)) return { mediaType: 'image/png', data: Buffer.from(png).toString('base64') };
  }
  for (const quality of JPEG_QUALITIES) {
    const jpg = encodeJpeg(pixels, quality);
    if (within(jpg)) return { mediaType: 'image/jpeg', data: Buffer.from(jpg).toString('base64') };
  }
  return undefined;
}
