// Each outside system sits behind one module: a new sink cannot write to GitHub or to the runner without going
// through the module that redacts what it sends.
import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = join(import.meta.dirname, '../src');

async function sources(dir = SRC): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const nested = await Promise.all(
    entries.map((entry) =>
      entry.isDirectory()
        ? sources(join(dir, entry.name))
        : Promise.resolve(entry.name.endsWith('.ts') ? [join(dir, entry.name)] : []),
    ),
  );
  return nested.flat();
}

/** The source files (relative to src/) that import a module matching `pattern`. */
async function importersOf(pattern: RegExp): Promise<string[]> {
  const found: string[] = [];
  for (const file of await sources()) {
    const text = await readFile(file, 'utf8');
    const imports = [...text.matchAll(/\bfrom\s+'([^']+)'|\bimport\(\s*'([^']+)'\s*\)/g)].map(
      (m) => m[1] ?? m[2],
    );
    if (imports.some((name) => name !== undefined && pattern.test(name))) found.push(relative(SRC, file));
  }
  return found.sort();
}

describe('redaction boundaries', () => {
  it('only src/github/api.ts talks to GitHub (and it redacts every request there)', async () => {
    expect(await importersOf(/^@actions\/github$|^@octokit\//)).toEqual(['github/api.ts']);
  });

  it('only src/runner-output.ts writes to the runner: log, outputs, failure, summary', async () => {
    expect(await importersOf(/^@actions\/core$/)).toEqual(['runner-output.ts']);
  });
});
