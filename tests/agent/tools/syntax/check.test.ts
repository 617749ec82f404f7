import { existsSync } from 'node:fs';
import { mkdtemp, readFile, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { writeAndCheck } from '../../../../src/agent/tools/syntax/check.js';
import type { ToolContext } from '../../../../src/agent/tools/types.js';

let ws: string;
let context: ToolContext;

beforeEach(async () => {
  ws = await realpath(await mkdtemp(path.join(tmpdir(), 'todo-agent-syntax-')));
  context = { workspace: ws, bashTimeoutSeconds: 10, env: process.env };
});

afterEach(async () => {
  await rm(ws, { recursive: true, force: true });
});

/** Writes `after` over `before` (undefined: a new file) and returns what the check said. */
async function check(name: string, after: string, before?: string): Promise<string | undefined> {
  const file = path.join(ws, name);
  if (before !== undefined) await writeFile(file, before);
  const said = await writeAndCheck(
    () => writeFile(file, after),
    { file, shownPath: name, before, after },
    context,
  );
  expect(await readFile(file, 'utf8')).toBe(after); // the edit stays made, whatever the check says
  return said;
}

const tail = 'The file is written as asked; fix it with another edit if that was not the intent.';

describe('the syntax check after an edit', () => {
  it('JSON: the first error with its line and column, strict for .json, lenient for tsconfig', async () => {
    expect(await check('package.json', '{\n  "a": 1,\n}\n', '{\n  "a": 1\n}\n')).toBe(
      `package.json no longer parses as JSON: line 3, column 1: property name expected. ${tail}`,
    );
    expect(await check('new.json', '{"a": 1} // note\n')).toBe(
      `new.json does not parse as JSON: line 1, column 10: invalid comment token. ${tail}`,
    );
    expect(await check('tsconfig.json', '{\n  // comments are fine here\n  "a": 1,\n}\n')).toBeUndefined();
    expect(await check('ok.json', '{"a": [1, 2]}')).toBeUndefined();
  });

  it('YAML: every document is read, and the error names its line', async () => {
    const said = await check('ci.yml', 'on: push\n---\njobs:\n  a: [1, 2\n');
    expect(said).toMatch(/^ci\.yml does not parse as YAML: line 5, column 1: Flow sequence/);
    expect(await check('ok.yaml', 'a: 1\n---\nb: [1, 2]\n')).toBeUndefined();
  });

  it('YAML: a key repeated in its map is an error, checked in one pass however many keys there are', async () => {
    expect(await check('a.yml', 'a: 1\nb:\n  c: 2\n  c: 3\n')).toBe(
      `a.yml does not parse as YAML: line 4, column 3: Map keys must be unique. ${tail}`,
    );
    expect(await check('b.yml', '1: a\n"1": b\n')).toBeUndefined(); // a number and a string differ
    // 14,000 keys (yaml's own check compares each with every other: seconds of a held event loop).
    const keys = Array.from({ length: 14_000 }, (_, i) => `k${i}: v`).join('\n');
    expect(await check('many.yml', `${keys}\nk7: again\n`)).toBe(
      `many.yml does not parse as YAML: line 14001, column 1: Map keys must be unique. ${tail}`,
    );
  });

  it('checks in process only what parses quickly: a larger file, or one nested past the stack, is not checked', async () => {
    // Over the limits (128 KB of YAML, 1 MB of the rest), the error goes unremarked.
    expect(await check('big.yml', `${'a: 1\n'.repeat(30_000)}b: [\n`)).toBeUndefined();
    expect(await check('big.json', `[${'1,'.repeat(600_000)}`)).toBeUndefined();
    // Nesting no parser's stack holds: no check, and no failed write either.
    expect(await check('deep.json', `${'['.repeat(100_000)}${']'.repeat(100_000)}`)).toBeUndefined();
    expect(await check('deep.yml', `${'['.repeat(20_000)}${']'.repeat(20_000)}`)).toBeUndefined();
  });

  it('TOML: the error names its line and column', async () => {
    expect(await check('pyproject.toml', '[project]\nname = "x\n', '[project]\nname = "x"\n')).toMatch(
      /^pyproject\.toml no longer parses as TOML: line 2, column \d+: /,
    );
    expect(await check('ok.toml', '[a]\nb = 1\n')).toBeUndefined();
  });

  it('JavaScript: a module or a script is fine; text that is neither is an error', async () => {
    expect(await check('esm.js', 'import x from "y";\nexport const a = x;\n')).toBeUndefined();
    expect(await check('cjs.js', '#!/usr/bin/env node\nreturn module.exports;\n')).toBeUndefined();
    expect(await check('bad.mjs', 'const a = 1;\nfunction f(x {\n}\n')).toBe(
      `bad.mjs does not parse as JavaScript: line 2, column 14: Unexpected token. ${tail}`,
    );
  });

  it('Python: checked by python3 itself, without writing a .pyc', async () => {
    expect(await check('app.py', 'def f(:\n    pass\n', 'def f():\n    pass\n')).toBe(
      `app.py no longer parses as Python: line 1, column 7: invalid syntax. ${tail}`,
    );
    expect(await check('ok.py', 'x = 1\n')).toBeUndefined();
    expect(existsSync(path.join(ws, '__pycache__'))).toBe(false);
  });

  it("TypeScript: checked by the project's own typescript when it is installed, else not at all", async () => {
    const broken = 'const a: number = 1;\nfunction f(x: string {\n  return x;\n}\n';
    expect(await check('a.ts', broken)).toBeUndefined(); // no typescript in this workspace
    await symlink(path.resolve('node_modules'), path.join(ws, 'node_modules'));
    expect(await check('b.ts', broken)).toBe(
      `b.ts does not parse as TypeScript: line 2, column 22: ',' expected. ${tail}`,
    );
    expect(await check('c.ts', 'export const a: number = 1;\n')).toBeUndefined();
  });

  it('leaves alone a file whose error was there before, and a kind it does not check', async () => {
    expect(await check('old.json', '{"a": 2,}', '{"a": 1,}')).toBeUndefined();
    expect(await check('notes.md', '{{{ not json')).toBeUndefined();
  });
});
