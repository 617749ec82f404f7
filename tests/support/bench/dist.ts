// Bench measure 6: the size of the bundle in dist/, and whether it is older than the source it came from.
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { ROOT } from '../action-harness.js';

export interface DistSize {
  /** Bytes per file in dist/. */
  files: Record<string, number>;
  totalBytes: number;
  indexBytes: number;
  builtAt: string;
  /** A file under src/ changed after dist/index.js was built: the bundle may not match the source. */
  staleSource?: string;
}

async function newestFile(dir: string): Promise<{ path: string; mtimeMs: number } | undefined> {
  let newest: { path: string; mtimeMs: number } | undefined;
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    const { mtimeMs } = await stat(path);
    if (!newest || mtimeMs > newest.mtimeMs) newest = { path, mtimeMs };
  }
  return newest;
}

export async function measureDistSize(root = ROOT): Promise<DistSize> {
  const dist = join(root, 'dist');
  const files: Record<string, number> = {};
  for (const name of (await readdir(dist)).sort()) {
    const info = await stat(join(dist, name));
    if (info.isFile()) files[name] = info.size;
  }
  if (files['index.js'] === undefined)
    throw new Error('bench: dist/index.js is missing; run `npm run build`');
  const built = await stat(join(dist, 'index.js'));
  const newestSource = await newestFile(join(root, 'src'));
  return {
    files,
    totalBytes: Object.values(files).reduce((a, b) => a + b, 0),
    indexBytes: files['index.js'],
    builtAt: built.mtime.toISOString(),
    ...(newestSource && newestSource.mtimeMs > built.mtimeMs
      ? { staleSource: newestSource.path.slice(root.length + 1) }
      : {}),
  };
}
