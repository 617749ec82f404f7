// One-key-a-line settings (Java properties, Go's env file, yarn classic's .yarnrc): keys judged as their
// readers read them, continued lines kept or dropped whole.
import { describe, expect, it } from 'vitest';
import { filterLines, lineValues } from '../../../src/network/runner/lines.js';

const isToken = (key: string) => /token|passw/i.test(key);

describe('filterLines', () => {
  it('reads Java properties’ escapes and separators', () => {
    const text = [
      'repo\\u0054oken=s3cr3t-escaped',
      'repoToken : s3cr3t-colon',
      'repoToken s3cr3t-space',
      'repo\\ Password=s3cr3t-escaped-space',
      'repoToken=\\',
      '   s3cr3t-continued\\',
      '   s3cr3t-continued-again',
      'url=https://u:s3cr3t-url@maven.corp.example/',
      'ends.in.backslashes=a\\\\',
      'next=kept',
      '',
    ].join('\n');
    expect(filterLines('properties', text, isToken)).toBe(
      'url=https://maven.corp.example/\nends.in.backslashes=a\\\\\nnext=kept\n',
    );
  });

  it('reads Go’s env file as Go does: capitalised names only', () => {
    const text = 'GOPROXY=https://u:s3cr3t@proxy.corp.example\n gotoken=x\nGOTOKEN=s3cr3t-2\n';
    expect(filterLines('goenv', text, isToken)).toBe('GOPROXY=https://proxy.corp.example\n');
    expect(lineValues('goenv', text, /^GOPROXY$/)).toEqual(['https://u:s3cr3t@proxy.corp.example']);
  });

  it('reads yarn classic’s quoted keys and values', () => {
    const text = '"//npm.corp.example/:_auth\\u0054oken" "s3cr3t"\nregistry "https://npm.corp.example/"\n';
    expect(filterLines('yarnrc', text, (key) => key.startsWith('//') || isToken(key))).toBe(
      'registry "https://npm.corp.example/"\n',
    );
    expect(lineValues('yarnrc', text, /^registry$/)).toEqual(['https://npm.corp.example/']);
  });
});

describe('filterLines, on hostile lines (200 kB each, read once)', () => {
  const BIG = 200_000;

  it('joins 50 000 continued lines, and lines of backslashes, counting each once', () => {
    const continued = `url=https://maven.corp.example/\\\n${'a\\\n'.repeat(BIG / 4)}b\n`;
    expect(filterLines('properties', continued, isToken)).toBe(continued);
    expect(lineValues('properties', continued, /^url$/)).toEqual([
      `https://maven.corp.example/${'a'.repeat(BIG / 4)}b`,
    ]);
    // Three backslashes a line: each continues, its run counted on from the one before.
    const slashes = `k=${'\\\\\\\n'.repeat(BIG / 4)}end\nnext=1\n`;
    expect(lineValues('properties', slashes, /^next$/)).toEqual(['1']);
  });

  it('reads a separator after many spaces, and a value with any character, at once', () => {
    expect(lineValues('properties', `k${' '.repeat(BIG)}x\u2028y`, /^k$/)).toEqual(['x\u2028y']);
    expect(lineValues('yarnrc', `${'a'.repeat(BIG)} b\u2028c`, /^a+$/)).toEqual(['b\u2028c']);
  });
});

it('keeps a line continued 400 000 times, line by line (never all of them as one call’s arguments)', () => {
  const continued = `url=https://maven.corp.example/\\\n${'a\\\n'.repeat(400_000)}b\n`;
  expect(filterLines('properties', continued, isToken)).toBe(continued);
});
