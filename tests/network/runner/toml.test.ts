// cargo's TOML read entry by entry: a secret in any spelling TOML allows goes, with its whole value.
import { describe, expect, it } from 'vitest';
import { filterToml, tomlValues } from '../../../src/network/runner/toml.js';

describe('filterToml', () => {
  it('judges dotted, quoted and escaped keys and table names as TOML reads them', () => {
    const text = [
      '[registries.corp]',
      'index = "https://crates.corp.example/index"',
      '"tok\\u0065n" = "s3cr3t-escaped"',
      "'token' = 's3cr3t-literal'",
      '[ registries . "corp" ]',
      'token="s3cr3t-spaced"',
      '[registries."my-token-reg"]',
      'index = "https://dropped.corp.example/index"',
      '[registries.other]',
      'x = { "token" = "s3cr3t-inline-quoted" }',
      'y = [',
      '  "kept-array", # a comment ]',
      ']',
      '',
    ].join('\n');
    const kept = filterToml(text);
    expect(kept).not.toMatch(/s3cr3t|dropped/);
    expect(kept).toBe(
      [
        '[registries.corp]',
        'index = "https://crates.corp.example/index"',
        '[ registries . "corp" ]',
        '[registries.other]',
        'y = [',
        '  "kept-array", # a comment ]',
        ']',
        '',
      ].join('\n'),
    );
  });

  it('drops a line it does not understand, and everything up to the next table', () => {
    const text = [
      '[http]',
      'cainfo = "/ca.pem"',
      'garbage "s3cr3t-1',
      'more = "s3cr3t-2"',
      '[net]',
      'offline = true',
      '',
    ].join('\n');
    expect(filterToml(text)).toBe('[http]\ncainfo = "/ca.pem"\n[net]\noffline = true\n');
  });

  it('keeps a multi-line string whole, unless what is in it reads as a secret key', () => {
    const text = ['note = """', 'a note', 'on two lines', '"""', 'after = 1', ''].join('\n');
    expect(filterToml(text)).toBe(text);
    // Inside a string, `token = …` is no key; the entry goes all the same (wrongly, but safely).
    expect(filterToml('note = """\ntoken = s3cr3t-in-a-string\n"""\nafter = 1\n')).toBe('after = 1\n');
    expect(
      tomlValues('a = { index = "https://x.corp.example" }\nindex = \'https://y.corp.example\'', /^index$/),
    ).toEqual(['https://x.corp.example', 'https://y.corp.example']);
  });
});

describe('filterToml, what a review found', () => {
  it('leaves out the [env] table and env.* keys, whatever their names', () => {
    const text = [
      'env.OTHER = "s3cr3t-dotted"',
      '[env]',
      'GH_PAT = "s3cr3t-env"',
      '[http]',
      'cainfo = "/etc/ca.pem"',
    ].join('\n');
    const shown = filterToml(text);
    expect(shown).not.toContain('s3cr3t');
    expect(shown).toContain('cainfo = "/etc/ca.pem"');
  });

  it('splits at a lone carriage return', () => {
    expect(filterToml('[http]\rcainfo = "/ca.pem"\rtoken = "s3cr3t-cr"\n')).not.toContain('s3cr3t');
  });
});

describe('filterToml and tomlValues, on hostile lines (200 kB each, read once)', () => {
  const BIG = 200_000;

  it('reads a header, an inline table and the values once', () => {
    expect(filterToml(`[http${' '.repeat(BIG)}\ncainfo = "/ca.pem"\n[net]\noffline = true\n`)).toBe(
      '[net]\noffline = true\n',
    );
    const words = `x = { a = "${'a'.repeat(BIG)}" }\n`;
    expect(filterToml(words)).toBe(words);
    expect(filterToml(`x = { k = "${'\\"'.repeat(BIG / 2)}", token = "s3cr3t" }\n`)).toBe('');
    expect(filterToml(`x = { k = ${'"\\"'.repeat(BIG / 3)} }\n`)).toBe('');
    expect(tomlValues(`${'a'.repeat(BIG)}\nindex = "https://crates.corp.example/"`, /^index$/)).toEqual([
      'https://crates.corp.example/',
    ]);
    expect(tomlValues(`index = "${'\\"'.repeat(BIG / 2)}`, /^index$/)).toEqual([]);
  });

  it('shows nothing after a value that never ends, and reads it once', () => {
    expect(filterToml(`[net]\noffline = true\n${'a = [\n[t]\n'.repeat(BIG / 10)}`)).toBe(
      '[net]\noffline = true\n',
    );
  });
});

it('keeps an array of 400 000 lines, line by line (never all of them as one call’s arguments)', () => {
  const array = `index = "https://crates.corp.example/"\nlist = [\n${'  "a",\n'.repeat(400_000)}]\n`;
  expect(filterToml(array)).toBe(array);
});
