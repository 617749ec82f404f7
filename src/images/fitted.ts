// What an image made fit for the model is, and the numbers that bound the making: shared by the action's
// side (./fit.ts, ./decoder.ts) and the decoder's own process (./decoder-main.ts).
import type { ImageMediaType } from './sniff.js';

/** The long edge the vision guide advises: larger images are scaled down by the API anyway, at a cost. */
export const MAX_EDGE = 1568;
/** The API's limit on one image's base64 data, in bytes. */
export const MAX_IMAGE_BASE64_BYTES = 5 * 1024 * 1024;
/**
 * The most pixels an image may declare and still be decoded: 25 megapixels (5,000 × 5,000; a 24-megapixel
 * camera's 6,000 × 4,000 fits). Ours, from what the decoder can do within its limits below: jpeg-js takes
 * about 33 bytes a pixel (770 MB for 24 megapixels) and 5 s for 24 megapixels even of a file that holds
 * none of them, so an image that claims more is refused from its header, before a decoder starts.
 */
export const MAX_DECODE_PIXELS = 25_000_000;
/**
 * The memory the decoder's process may take, in MiB (its RLIMIT_DATA). Ours: the decoders are pure JavaScript
 * that hold an image several times over (a 12-megapixel photograph takes jpeg-js about 450 MB), and the
 * process is apart from the action's, so that whatever an image does to it, the action goes on.
 */
export const DECODER_MEMORY_MB = 1024;
/**
 * The processor time one decode may take (its RLIMIT_CPU), in seconds: a 16-megapixel JPEG takes jpeg-js
 * about 8 s. Processor time, not time on the clock, so that a busy runner does not fail a picture it could read.
 */
export const DECODER_CPU_SECONDS = 20;
/** A decoder still running after this on the clock is killed all the same (it may be waiting, not working). */
export const DECODE_TIMEOUT_MS = 120_000;

export const base64Length = (bytes: number): number => Math.ceil(bytes / 3) * 4;
export const px = (width: number, height: number): string => `${width}×${height} px`;

/** Why an image of this declared size is not decoded, or undefined when it may be. */
export function overPixelCap(width: number, height: number): string | undefined {
  return width * height > MAX_DECODE_PIXELS
    ? `too large to scale (${px(width, height)}; the most is ${MAX_DECODE_PIXELS / 1_000_000} megapixels)`
    : undefined;
}

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

/** What our own checks found wrong with an image (its message says what, in a few words). */
export class DamagedImage extends Error {}
