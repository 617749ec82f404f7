// YAML settings read line by line: a secret key goes with what is below it, in whatever spelling YAML allows;
// what this reading does not understand goes too.
import { describe, expect, it } from 'vitest';
import { filterYaml, yamlValues } from '../../../src/network/runner/yaml.js';

const isToken = (key: string) => /token/i.test(key);

describe('filterYaml', () => {
  it('judges quoted and escaped keys as YAML reads them', () => {
    const text = [
      'keep: 1',
      '"npmAuth\\u0054oken": s3cr3t-escaped',
      "'npmAuthToken': s3cr3t-single",
      'npmAuthToken   :   s3cr3t-spaced',
      'npmAuthToken: # a comment, then the value below',
      '  s3cr3t-below',
      'npmAuthToken: |',
      '  s3cr3t-block',
      'npmAuthToken: "s3cr3t-multi',
      '  line"',
      '',
    ].join('\n');
    expect(filterYaml(text, isToken)).toBe('keep: 1\n');
  });

  it('drops flow mappings, complex keys, tabs and what is below them', () => {
    const text = [
      'scopes:',
      '  corp: { npmAuthToken: s3cr3t-flow }',
      '  other: {',
      '    npmRegistryServer: https://x.corp.example,',
      '  }',
      '? npmAuthToken',
      ': s3cr3t-complex',
      '\tnpmAuthToken: s3cr3t-tab',
      'list: [a, b]',
      '',
    ].join('\n');
    const kept = filterYaml(text, isToken);
    expect(kept).not.toMatch(/s3cr3t/);
    expect(kept).toBe('list: [a, b]\n');
  });

  it('drops a token inside a sequence item, keeps its siblings', () => {
    const text = [
      'items:',
      '  - name: a',
      '    token: s3cr3t-item',
      '  - name: b',
      '  - token: s3cr3t-first',
      '',
    ].join('\n');
    expect(filterYaml(text, isToken)).toBe('items:\n  - name: a\n  - name: b\n');
  });

  it('reads values at any depth and the items of a sequence, compact or indented', () => {
    const text = [
      ':sources:',
      '- https://a.corp.example/',
      ':other:',
      '  - x',
      'deep:',
      '  :sources:',
      '    - "https://b.corp.example/"',
      '',
    ].join('\n');
    expect(yamlValues(text, /^:sources$/)).toEqual(['https://a.corp.example/', 'https://b.corp.example/']);
  });
});

describe('filterYaml, the spellings a review found', () => {
  it('leaves out a flow mapping behind an anchor or a tag, and an item nested in an item', () => {
    const text = [
      'keep: 1',
      'a: &x { npmAuthToken: s3cr3t-anchor }',
      'b: !!map { npmAuthToken: s3cr3t-tag }',
      'c:',
      '  - - npmAuthToken: s3cr3t-nested',
      '  - - plain: shown',
    ].join('\n');
    const shown = filterYaml(text, isToken);
    expect(shown).not.toContain('s3cr3t');
    expect(shown).toContain('keep: 1');
    expect(shown).toContain('plain: shown');
  });

  it('splits at a lone carriage return', () => {
    expect(filterYaml('keep: 1\rnpmAuthToken: s3cr3t-cr\n', isToken)).toBe('keep: 1\n');
  });
});

describe('filterYaml and yamlValues, on hostile lines (200 kB each, read once)', () => {
  const BIG = 200_000;
  const spaces = ' '.repeat(BIG);

  it('reads a key line to its first `: ` once, however many spaces stand before it or none follows', () => {
    // No `:` after the spaces: no key line, so the line goes.
    expect(filterYaml(`npmRegistryServer${spaces}x\nkeep: 1\n`, isToken)).toBe('keep: 1\n');
    expect(filterYaml(`npmRegistryServer${spaces}: "https://npm.corp.example"\n`, isToken)).toBe(
      `npmRegistryServer${spaces}: "https://npm.corp.example"\n`,
    );
    // A value of spaces then text, and of spaces then a comment.
    expect(yamlValues(`cafile: a${spaces}b\n`, /^cafile$/)).toEqual([`a${spaces}b`]);
    expect(yamlValues(`cafile: a${spaces}# c\n`, /^cafile$/)).toEqual(['a']);
    expect(filterYaml(`keep: a${spaces}b${spaces}\n`, isToken)).toBe(`keep: a${spaces}b\n`);
  });

  it('reads anchors and tags token by token, and nested items all at once', () => {
    // 40 `&` before a value: every way of splitting them was tried, one after the other (2^40).
    const anchors = `keep: ${'&'.repeat(40)} x\n`;
    expect(filterYaml(anchors, isToken)).toBe(anchors);
    expect(filterYaml(`keep: ${'&a '.repeat(BIG / 3)}\n`, isToken)).toBe('');
    // An item nested 100 000 deep is judged by the key it holds, without a call for each level.
    expect(filterYaml(`list:\n  ${'- '.repeat(BIG / 2)}npmAuthToken: s3cr3t\n`, isToken)).toBe('');
    expect(filterYaml(`list:\n  ${'- '.repeat(BIG / 2)}{ a: s3cr3t }\n`, isToken)).toBe('');
    expect(filterYaml(`list:\n  ${'- '.repeat(BIG / 2)}name: x\n`, isToken)).toBe(
      `list:\n  ${'- '.repeat(BIG / 2)}name: x\n`,
    );
  });

  it('keeps 100 000 lines in order without moving them each time', () => {
    const lines = Array.from({ length: BIG / 2 }, (_, i) => `k${i}: v`);
    expect(filterYaml(`${lines.join('\n')}\n`, isToken)).toBe(`${lines.join('\n')}\n`);
  });
});
