// JSON that HTML and Markdown cannot read as markup (src/text/inert-json.ts): the characters escaped inside
// strings only, and the JSON still the same value.
import { describe, expect, it } from 'vitest';
import { inertJson } from '../../src/text/inert-json.js';

describe('inertJson', () => {
  it('escapes <, > and & inside strings, keys too, and parses back to the same value', () => {
    const value = { '<k>': '</script><b>&amp;', quote: 'say "<hi>"', list: ['a&b', 1, null] };
    const text = inertJson(value);
    expect(text).not.toMatch(/[<>&]/);
    expect(text).toContain('\\u003c/script\\u003e');
    expect(JSON.parse(text)).toEqual(value);
  });

  it('escapes what the caller names, and indents as asked', () => {
    expect(inertJson({ a: '|`x`|' }, /[|`]/g, 1)).toBe('{\n "a": "\\u007c\\u0060x\\u0060\\u007c"\n}');
  });
});
