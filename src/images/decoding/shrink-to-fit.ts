// The decoder process's work: an image too large to send as it is, decoded, shrunk by area averaging so its
// long edge is at most 1,568 px, and encoded within the API's 5 MB. What cannot be is skipped with the reason,
// never sent broken.
import { decode, encodeJpeg, encodePng } from './codecs.js';
import {
  base64Length,
  DamagedImage,
  DECODER_MEMORY_MB,
  MAX_EDGE,
  MAX_IMAGE_BASE64_BYTES,
  overPixelCap,
  px,
  type Fit,
} from '../fitted.js';
import { fittedSize, shrink, type Pixels } from './scale.js';
import { sniffImage, type ImageKind, type ImageMediaType } from '../sniff.js';

const JPEG_QUALITIES = [85, 70, 50];

export async function shrinkToFit(bytes: Uint8Array): Promise<Fit> {
  const kind = sniffImage(bytes);
  if (!kind) return { skipped: 'not a PNG, JPEG, GIF or WebP image' };
  let pixels: Pixels;
  try {
    pixels = await decode(bytes, kind.mediaType);
  } catch (error) {
    return { skipped: undecodable(kind, error) };
  }
  const size = fittedSize(pixels.width, pixels.height, MAX_EDGE);
  const small = shrink(pixels, size.width, size.height);
  const encoded = encodeWithin(small, kind.mediaType === 'image/jpeg' ? 'jpeg' : 'png');
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

/** Allocation failures (V8's, Node's Buffer's) and jpeg-js's own refusal: the image needs more memory than allowed. */
const OUT_OF_MEMORY =
  /allocation failed|Buffer larger than|Invalid (?:typed )?array length|maxMemoryUsageInMB/i;

/** Why the image could not be decoded, in a few words. */
function undecodable(kind: ImageKind, error: unknown): string {
  const { mediaType } = kind;
  const message = error instanceof Error ? error.message : String(error);
  // jpeg-js's own check of the cap (a caller that did not check it first): the same reason as ours.
  if (/maxResolutionInMP limit exceeded/.test(message))
    return overPixelCap(kind.width, kind.height) ?? 'a damaged JPEG image';
  if (OUT_OF_MEMORY.test(message))
    return `too large to decode within ${DECODER_MEMORY_MB / 1024} GB of memory`;
  const what = `a damaged ${mediaType.slice(6).toUpperCase()} image`;
  // Our own checks say what they found; a decoder's message is its own business.
  if (error instanceof DamagedImage) return `${what}: ${message}`;
  // libwebp's simple decoder reads still images only: an animation cannot be scaled.
  return mediaType === 'image/webp' ? 'an animated or damaged WebP image' : what;
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
