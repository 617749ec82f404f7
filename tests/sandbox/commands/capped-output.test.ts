import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CappedOutput, capText, splitLimit } from '../../../src/sandbox/commands/capped-output.js';
import { COMMAND_OUTPUT_HINT } from '../../../src/sandbox/commands/capped-output.js';
import { Redactor } from '../../../src/text/redact.js';

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

  it('ends the marker with a hint when given one: how to see what a command printed past the cut', () => {
    const out = new CappedOutput(10, undefined, COMMAND_OUTPUT_HINT);
    out.write('abcdefghijklmnopqrstuvwxyz');
    expect(out.toString()).toBe(
      'abcd\n... [16 characters cut: showing the first 4 and the last 6; to see the rest, narrow the command ' +
        '(grep -n, head, tail, one test file) or send its output to a file under /tmp ' +
        '(`cmd > /tmp/out.txt 2>&1`) and search that with grep -n] ...\nuvwxyz',
    );
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

describe('CappedOutput with a redaction: no secret in halves at its cuts', () => {
  const SECRET = 'Qz7pW2xLm9Kd4VbN8rTj';
  const redaction = new Redactor();
  redaction.add(SECRET);
  /** Every piece of `secret` at least `size` long that `text` holds. */
  const piecesIn = (text: string, secret: string, size: number) =>
    Array.from({ length: secret.length - size + 1 }, (_, at) => secret.slice(at, at + size)).filter((piece) =>
      text.includes(piece),
    );
  const marker =
    /\n\.\.\. \[([\d,]+) characters cut: showing the first ([\d,]+) and the last ([\d,]+)\] \.\.\.\n/;
  const count = (text: string) => Number(text.replaceAll(',', ''));

  it('keeps no 3 characters of a known secret wherever it lies, however the stream comes in chunks', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 2, max: 400 }),
        fc.integer({ min: 0, max: 900 }),
        fc.integer({ min: 0, max: 900 }),
        fc.array(fc.integer({ min: 1, max: 97 }), { minLength: 1, maxLength: 8 }),
        (limit, before, after, sizes) => {
          const text = `${'ab cd\n'.repeat(before).slice(0, before)}${SECRET}${'ef gh\n'.repeat(after).slice(0, after)}`;
          const out = new CappedOutput(limit, redaction);
          for (let at = 0, i = 0; at < text.length; at += sizes[i++ % sizes.length]!) {
            out.write(text.slice(at, at + sizes[i % sizes.length]!));
          }
          const shown = out.toString();
          expect(piecesIn(shown, SECRET, 3)).toEqual([]);
          const cut = marker.exec(shown);
          if (!cut) expect(shown).toBe(redaction.redact(text));
          else expect(count(cut[1]!) + count(cut[2]!) + count(cut[3]!)).toBe(text.length);
        },
      ),
      { numRuns: 400 },
    );
  });

  it('masks a secret across the head cut and one across the start of the tail, keeping the text around them', () => {
    const out = new CappedOutput(50_000, redaction); // the first 20,000 and the last 30,000
    out.write(`${'x y\n'.repeat(5_000).slice(0, 19_990)}${SECRET}`);
    out.write('m n\n'.repeat(10_000));
    out.write(`${SECRET}\n${'t u\n'.repeat(10_000)}`.slice(0, 30_010)); // the tail starts 10 into it
    const shown = out.toString();
    expect(piecesIn(shown, SECRET, 2)).toEqual([]);
    const [head, tail] = shown.split(/\n\.\.\. \[.*\] \.\.\.\n/);
    expect(head).toBe('x y\n'.repeat(5_000).slice(0, 19_990));
    expect(tail).toBe(`\n${'t u\n'.repeat(10_000).slice(0, 29_989)}`);
    expect(shown).toContain('[40,040 characters cut: showing the first 19,990 and the last 29,990]');
  });

  it('keeps no end of a token longer than the margin that a cut splits, nor a header value after its cut', () => {
    const token = `ghp_${'A1b2C3'.repeat(100)}`; // 604 characters, past the 100-character margin
    const header = 'AUTHORIZATION: basic eC1hY2Nlc3MtdG9rZW46c2VjcmV0dmFsdWUx';
    for (const text of [
      `${'word '.repeat(10)}${token} after`, // across the head cut (20 of 50)
      `before ${token}${' word'.repeat(10)}`, // across the start of the tail
      `${'word '.repeat(40)}${header}${' word'.repeat(4)}`, // the tail starts inside the value
    ]) {
      const shown = capText(text, 50, redaction);
      expect(shown).toMatch(marker);
      expect(piecesIn(shown, token, 8)).toEqual([]);
      expect(piecesIn(shown, 'eC1hY2Nlc3MtdG9rZW46c2VjcmV0dmFsdWUx', 4)).toEqual([]);
    }
  });

  it('widens its margin to the longest known secret: a 300-character key across a cut goes whole', () => {
    const key = Array.from({ length: 30 }, (_, i) => `line-${i}-of-key`.padEnd(9, '.')).join('\n');
    const own = new Redactor();
    own.add(key);
    expect(own.margin).toBeGreaterThanOrEqual(key.length);
    const shown = capText(`${'a\n'.repeat(200)}${key}${'\nz'.repeat(400)}`, 500, own);
    expect(piecesIn(shown, key, 8)).toEqual([]);
  });
});
