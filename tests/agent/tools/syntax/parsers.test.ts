// The in-process parsers a written file is checked with: the first syntax error of JSON (with comments where
// the file's name says so), YAML (duplicate keys included), TOML and JavaScript (module or script), each with
// its line and column; nothing for text that parses.
import { describe, expect, it } from 'vitest';
import { findProblem } from '../../../../src/agent/tools/syntax/parsers.js';

describe('findProblem', () => {
  it('finds nothing in text that parses', () => {
    expect(findProblem('json', '{"a": [1, 2]}', 'a.json')).toBeUndefined();
    expect(findProblem('yaml', 'a: 1\n---\nb: [1, 2]\n', 'a.yml')).toBeUndefined();
    expect(findProblem('toml', '[tool]\nname = "x"\n', 'a.toml')).toBeUndefined();
    expect(findProblem('javascript', 'import x from "y";\nexport default x;\n', 'a.mjs')).toBeUndefined();
    // CommonJS with a top-level return is a script, not an error.
    expect(findProblem('javascript', '#!/usr/bin/env node\nif (x) return;\n', 'a.js')).toBeUndefined();
  });

  it('places the first JSON error, and allows comments and trailing commas in the files that have them', () => {
    expect(findProblem('json', '{\n  "a": 1,\n}\n', 'package.json')).toEqual({
      line: 3,
      column: 1,
      message: 'property name expected',
    });
    expect(findProblem('json', '{\n  // why\n  "a": 1,\n}\n', 'tsconfig.json')).toBeUndefined();
    expect(findProblem('json', '{\n  // why\n  "a": 1\n}\n', '.vscode/settings.json')).toBeUndefined();
    expect(findProblem('json', '{"a": 1} // no\n', 'data.json')?.line).toBe(1);
  });

  it('places a YAML error and a key repeated in one map, but not keys repeated in different maps', () => {
    expect(findProblem('yaml', 'a: 1\nb: [1, 2\n', 'a.yml')).toMatchObject({ line: expect.any(Number) });
    expect(findProblem('yaml', 'a: 1\nb: 2\na: 3\n', 'a.yml')).toEqual({
      line: 3,
      column: 1,
      message: 'Map keys must be unique',
    });
    expect(findProblem('yaml', 'x:\n  a: 1\ny:\n  a: 2\n', 'a.yml')).toBeUndefined();
  });

  it('places a TOML error and a JavaScript one, without the parser’s own prefix or position', () => {
    const toml = findProblem('toml', 'name = "x"\nname = "y"\n', 'a.toml')!;
    expect(toml.line).toBe(2);
    expect(toml.message).not.toMatch(/^Invalid TOML document/);
    expect(findProblem('javascript', 'const a = 1;\nconst = 2;\n', 'a.js')).toEqual({
      line: 2,
      column: 7,
      message: 'Unexpected token',
    });
  });
});
