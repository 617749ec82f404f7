// An image made fit for the model: recognised by its bytes, scaled so its long edge is at most 1,568 px (the
// vision guide's advice), and at most 5 MB once base64-encoded (the API refuses more). One that fits already
// is sent as it is, never decoded here; one to be scaled is decoded in a process of its own (./decoder.ts),
// after its declared size was checked against the cap (milliseconds, whatever the format). What cannot be made fit is skipped with the reason, never sent broken.
import { decodeInChildProcess } from './decoder.js';
import { base64Length, MAX_EDGE, MAX_IMAGE_BASE64_BYTES, overPixelCap, type Fit } from './fitted.js';
import { sniffImage, webpFrameSize } from './sniff.js';

export type { ImageMediaType } from './sniff.js';
export { imageMagic, sniffImage } from './sniff.js';
export { MAX_EDGE, MAX_IMAGE_BASE64_BYTES, type Fit, type FittedImage } from './fitted.js';

export async function fitImage(bytes: Uint8Array, signal?: AbortSignal): Promise<Fit> {
  const kind = sniffImage(bytes);
  if (!kind) return { skipped: 'not a PNG, JPEG, GIF or WebP image' };
  const { mediaType, width, height } = kind;
  const fits = Math.max(width, height) <= MAX_EDGE && base64Length(bytes.length) <= MAX_IMAGE_BASE64_BYTES;
  // An animated GIF is sent as it is when it fits: the model reads its first frame either way.
  if (fits) return { image: { mediaType, data: Buffer.from(bytes).toString('base64'), width, height } };
  // Refused from the header alone (a WebP's bitstream may declare more than its canvas): no decoder starts.
  const frame = mediaType === 'image/webp' ? webpFrameSize(bytes) : undefined;
  const over = overPixelCap(width, height) ?? (frame && overPixelCap(frame.width, frame.height));
  if (over) return { skipped: over };
  return (await decodeInChildProcess(bytes, signal ? { signal } : {})).fit;
}
