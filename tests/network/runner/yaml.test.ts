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
