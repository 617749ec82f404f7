// Characters a reader cannot see (src/text/invisible.ts): control characters, zero-width and bidi marks, tags.
import { describe, expect, it } from 'vitest';
import { hasInvisible, stripInvisible } from '../../src/text/invisible.js';

describe('stripInvisible', () => {
  it('takes out zero-width, bidi, control and tag characters, and keeps newlines, tabs and every visible letter', () => {
    const hidden = 'a\u200Bb\u202Ec\u0007d\u{E0041}e\uFEFF';
    expect(stripInvisible(hidden)).toBe('abcde');
    expect(hasInvisible(hidden)).toBe(true);
    const plain = 'line one\n\tline two: é ü 漢字 👍';
    expect(stripInvisible(plain)).toBe(plain);
    expect(hasInvisible(plain)).toBe(false);
  });
});
