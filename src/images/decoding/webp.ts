// WebP's pixels, decoded by libwebp compiled to WebAssembly (@jsquash/webp, from Google's Squoosh): the one
// format the pure-JavaScript codecs do not read. The module is loaded on first use only, from the file the
// bundle carries beside itself (ncc copies it into dist/) or, run from source, from the package.
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import decode, { init } from '@jsquash/webp/decode.js';
import type { Pixels } from './scale.js';

const WASM_FILE = 'webp_dec.wasm';

/** The package's typing names only some of the options Emscripten's module takes. */
const initWith = init as (options: { wasmBinary: ArrayBuffer }) => Promise<void>;
let ready: Promise<void> | undefined;

function wasmPath(): string {
  const bundled = join(dirname(fileURLToPath(import.meta.url)), WASM_FILE);
  if (existsSync(bundled)) return bundled;
  return createRequire(import.meta.url).resolve(`@jsquash/webp/codec/dec/${WASM_FILE}`);
}

async function load(): Promise<void> {
  const code = await readFile(wasmPath());
  await initWith({ wasmBinary: new Uint8Array(code).buffer });
}

/** RGBA pixels of a still WebP (lossy or lossless, with or without alpha); throws on any other bytes. */
export async function decodeWebp(bytes: Uint8Array): Promise<Pixels> {
  ready ??= load().catch((error: unknown) => {
    ready = undefined; // a later image may try again
    throw error;
  });
  await ready;
  const image: { width: number; height: number; data: Uint8ClampedArray } = await decode(
    new Uint8Array(bytes).buffer,
  );
  return {
    width: image.width,
    height: image.height,
    data: new Uint8Array(image.data.buffer, image.data.byteOffset, image.data.byteLength),
  };
}
