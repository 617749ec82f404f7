import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CappedOutput, capText, splitLimit } from '../../src/agent/capped-output.js';

describe('CappedOutput', () => {
  it('keeps everything up to the limit, without a marker', () => {
    const out = new CappedOutput(10);
    out.write('abcde');
    out.write(Buffer.from('fghij'));
    expect(out.toString()).toBe('abcdefghij');
    expect(out.truncated).toBe(false);
  });

  it('keeps a head and a tail and says how much it cut', () => {
    const out = new CappedOutput(10); // head 4, tail 6
    out.write('abcdefghijklmnopqrstuvwxyz');
    expect(out.toString()).toBe(
      'abcd\n... [16 characters cut: showing the first 4 and the last 6] ...\nuvwxyz',
    );
    expect(out.totalChars).toBe(26);
    expect(out.truncated).toBe(true);
  });

  it('splits the default 50,000 into the first 20,000 and the last 30,000, with grouped numbers', () => {
    expect(splitLimit(50_000)).toEqual({ head: 20_000, tail: 30_000 });
    const out = new CappedOutput();
    out.write('h'.repeat(20_000));
    out.write('m'.repeat(1_000_000));
    out.write('t'.repeat(30_000));
    const text = out.toString();
    expect(text).toBe(
      'h'.repeat(20_000) +
        '\n... [1,000,000 characters cut: showing the first 20,000 and the last 30,000] ...\n' +
        't'.repeat(30_000),
    );
  });

  it('gives the same result however the input is chunked', () => {
    fc.assert(
      fc.property(
        fc.string({ maxLength: 200 }),
        fc.array(fc.nat({ max: 200 }), { maxLength: 20 }),
        fc.integer({ min: 2, max: 60 }),
        (text, cuts, limit) => {
          const points = [...new Set(cuts.map((c) => c % (text.length + 1)))].sort((a, b) => a - b);
          const out = new CappedOutput(limit);
          let from = 0;
          for (const point of [...points, text.length]) {
            out.write(text.slice(from, point));
            from = point;
          }
          expect(out.toString()).toBe(capText(text, limit));
          if (text.length <= limit) expect(out.toString()).toBe(text);
        },
      ),
    );
  });

  it('joins a UTF-8 character split across Buffer chunks', () => {
    const bytes = Buffer.from('a€b');
    const out = new CappedOutput();
    out.write(bytes.subarray(0, 2)); // 'a' and the first byte of '€'
    out.write(bytes.subarray(2));
    out.end();
    expect(out.toString()).toBe('a€b');
  });

  it('flushes an incomplete trailing character as U+FFFD on end()', () => {
    const out = new CappedOutput();
    out.write(Buffer.from([0x61, 0xe2, 0x82]));
    out.end();
    expect(out.toString()).toBe('a\ufffd');
  });

  it('never leaves half of a surrogate pair at the cut', () => {
    const text = '😀'.repeat(20); // 40 UTF-16 code units
    const capped = capText(text, 9); // head 3, tail 6: the head would end mid-pair
    const [head, tail] = capped.split(/\n\.\.\. \[.*\] \.\.\.\n/);
    expect(head).toBe('😀');
    expect(tail).toBe('😀😀😀');
    expect(capped).toContain('[32 characters cut: showing the first 2 and the last 6]');
  });

  it('refuses a nonsensical limit', () => {
    expect(() => new CappedOutput(1)).toThrow(RangeError);
  });
});

describe('capText', () => {
  it('returns short text unchanged and caps long text', () => {
    expect(capText('hello', 10)).toBe('hello');
    expect(capText('0123456789abc', 10)).toBe(
      '0123\n... [3 characters cut: showing the first 4 and the last 6] ...\n789abc',
    );
  });
});
