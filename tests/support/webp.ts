// Real WebP files for tests, made by libwebp's encoder (the same package's WebAssembly build): lossy or lossless,
// from RGBA pixels.
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import encode, { init } from '@jsquash/webp/encode.js';

const initWith = init as (options: { wasmBinary: ArrayBuffer }) => Promise<unknown>;
let ready: Promise<unknown> | undefined;

/** A WebP of the pixels (RGBA, row by row); lossless keeps them exactly. */
export async function webp(
  width: number,
  height: number,
  data: Uint8Array,
  { lossless = false }: { lossless?: boolean } = {},
): Promise<Buffer> {
  // Node has WebAssembly SIMD, so the package picks its SIMD build: that is the one given.
  const file = createRequire(import.meta.url).resolve('@jsquash/webp/codec/enc/webp_enc_simd.wasm');
  ready ??= readFile(file).then(async (code) => await initWith({ wasmBinary: new Uint8Array(code).buffer }));
  await ready;
  const pixels = { width, height, data: new Uint8ClampedArray(data), colorSpace: 'srgb' as const };
  const out = await encode(pixels as unknown as Parameters<typeof encode>[0], {
    quality: 80,
    lossless: lossless ? 1 : 0,
  });
  return Buffer.from(out);
}
