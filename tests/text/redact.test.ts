import { describe, expect, it } from 'vitest';
import { redactAndCut, Redactor, redactor, withoutUrlCredentials } from '../../src/text/redact.js';

describe('Redactor', () => {
  it.each([
    [
      'replaces every occurrence of a registered value',
      ['s3cr3t-value'],
      'a s3cr3t-value b s3cr3t-value',
      'a *** b ***',
    ],
    [
      'ignores empty, missing and short values',
      [undefined, '', '   ', 'abcde'],
      'abcde and more',
      'abcde and more',
    ],
    [
      'registers the trimmed value (secrets read from files often end in a newline)',
      ['token-123456\n'],
      'auth token-123456 ok',
      'auth *** ok',
    ],
    [
      'masks the longer of two nested secrets completely',
      ['abcdef', 'abcdef-extended'],
      'x abcdef-extended y abcdef z',
      'x *** y *** z',
    ],
    ['handles self-overlapping occurrences', ['aaaaaa'], 'baaaaaaab', 'b***b'],
    [
      'treats regex metacharacters in a secret literally',
      ['p4ss.(w*rd)+'],
      'x p4ss.(w*rd)+ y p4ssX(wwrd) z',
      'x *** y p4ssX(wwrd) z',
    ],
  ])('%s', (_case, secrets: (string | undefined)[], input, output) => {
    const r = new Redactor();
    for (const secret of secrets) r.add(secret);
    expect(r.redact(input)).toBe(output);
  });

  it('masks both of two secrets that overlap without nesting', () => {
    const r = new Redactor();
    r.add('1234567890');
    r.add('7890abcdef');
    const out = r.redact('<1234567890abcdef>');
    expect(out).toBe('<***>');
    expect(out).not.toMatch(/[0-9a-f]{3}/);
  });

  it.each([
    ['ghp_', 'ghp_' + 'A1b2C3d4E5'.repeat(4)],
    ['gho_', 'gho_' + 'z'.repeat(36)],
    ['ghu_', 'ghu_' + '0'.repeat(40)],
    ['ghs_', 'ghs_' + 'Q'.repeat(36)],
    ['ghr_', 'ghr_' + 'abc123'.repeat(6)],
    ['github_pat_', 'github_pat_11ABCDEFG0_abcdefghijklmnopqrstuvwxyz'],
    ['sk-ant-', 'sk-ant-api03-AbCdEf_GhIjKlMn-OpQrStUv'],
  ])('masks unregistered %s tokens by their shape', (_prefix, token) => {
    const r = new Redactor();
    expect(r.redact(`Authorization: token ${token}\n`)).toBe('Authorization: token ***\n');
  });

  it('leaves look-alikes that are too short alone', () => {
    const r = new Redactor();
    const text = 'ghp_short gho_' + 'x'.repeat(35) + ' github_pat_abc sk-ant-tooShort';
    expect(r.redact(text)).toBe(text);
  });

  it('returns text without secrets unchanged', () => {
    const r = new Redactor();
    r.add('hunter2hunter2');
    const text = 'Nothing to see here: ghp, sk-ant, github_pat, *** and unicode ✓ 漢字';
    expect(r.redact(text)).toBe(text);
  });

  it('masks values and shapes in the same text', () => {
    const r = new Redactor();
    r.add('my-own-password');
    const token = 'ghs_' + 'x'.repeat(36);
    expect(r.redact(`pw=my-own-password tok=${token}`)).toBe('pw=*** tok=***');
  });

  it('exports a shared process-wide instance', () => {
    expect(redactor).toBeInstanceOf(Redactor);
    redactor.add('process-wide-secret');
    expect(redactor.redact('see process-wide-secret')).toBe('see ***');
  });
});

describe('redactAndCut', () => {
  const secret = 'CutAcrossSecret0123456789';
  const r = new Redactor();
  r.add(secret);
  const redact = (text: string) => r.redact(text);
  const cutFirst = (text: string, max: number) => r.redact(Array.from(text).slice(0, max).join(''));

  it('redacts before it cuts: a secret across the limit leaves no half behind', () => {
    const text = `${'a'.repeat(15)} ${secret} ${'b'.repeat(40)}`;
    // Cut first, the redactor would no longer know the first half.
    expect(cutFirst(text, 25)).toContain('CutAcross');
    const cut = redactAndCut(text, 25, redact);
    expect(cut).toBe(`${'a'.repeat(15)} *** bbbb…`);
    expect(Array.from(cut)).toHaveLength(25);
  });

  it('does the same for a token known only by its shape', () => {
    const token = `ghs_${'Z'.repeat(36)}`;
    const cut = redactAndCut(`push to https://x:${token}@github.com failed`, 30, redact);
    expect(cut).not.toContain('ZZZ');
    expect(cut).toBe('push to https://x:***@github.…');
  });

  it('leaves short text whole and never splits a surrogate pair', () => {
    expect(redactAndCut('short', 10, redact)).toBe('short');
    expect(redactAndCut('😀😀😀😀', 3, redact)).toBe('😀😀…');
  });
});

describe('Redactor.redactSlice: a piece cut from a longer text', () => {
  const SECRET = 'Qz7pW2xLm9Kd4VbN8rTj';
  const own = () => {
    const r = new Redactor();
    r.add(SECRET);
    return r;
  };

  it('needs a margin of at least the longest known secret, and never less than the shapes need', () => {
    const r = new Redactor();
    expect(r.margin).toBe(100);
    r.add('x'.repeat(250));
    expect(r.margin).toBe(250);
  });

  it('drops the kept side of a known secret across the end cut, and says where the piece stops', () => {
    const text = `head text ${SECRET} more`;
    const cut = text.indexOf(SECRET) + 10;
    expect(own().redactSlice(text, 0, cut)).toEqual({ text: 'head text ', start: 0, end: 10 });
  });

  it('drops the kept side of a known secret across the start cut, and masks whole ones inside', () => {
    const text = `more ${SECRET} tail ${SECRET} end`;
    const cut = text.indexOf(SECRET) + 10;
    expect(own().redactSlice(text, cut, text.length)).toEqual({
      text: ' tail *** end',
      start: cut + 10,
      end: text.length,
    });
  });

  it('drops a run of token characters that a cut splits, whatever its length, but not a word a cut only touches', () => {
    const token = `github_pat_${'Zz9'.repeat(200)}`;
    const text = `start ${token} end`;
    const cut = 400; // well inside the token, far past the margin from its start
    const tail = new Redactor().redactSlice(text, cut, text.length);
    expect(tail).toEqual({ text: ' end', start: text.length - 4, end: text.length });
    const head = new Redactor().redactSlice(text, 0, cut);
    expect(head).toEqual({ text: 'start ', start: 0, end: 6 });
    expect(new Redactor().redactSlice('hello world', 0, 5).text).toBe('hello');
    expect(new Redactor().redactSlice('hello world', 6, 11).text).toBe('world');
  });

  it('sees an authorization header whose name lies before the cut, within the margin', () => {
    const text = `AUTHORIZATION: basic ${'QUJD'.repeat(10)} and on`;
    const cut = text.indexOf('QUJD');
    expect(new Redactor().redactSlice(text, cut, text.length).text).toBe('*** and on');
  });

  it('is the whole redaction when nothing is cut', () => {
    expect(own().redactSlice(`a ${SECRET} b`, 0, SECRET.length + 4)).toEqual({
      text: 'a *** b',
      start: 0,
      end: SECRET.length + 4,
    });
  });
});

describe('withoutUrlCredentials', () => {
  it('removes a URL’s user and password, and nothing else', () => {
    expect(withoutUrlCredentials('a https://u:p@h.test/x and git+https://tok@g.test/ b@c')).toBe(
      'a https://h.test/x and git+https://g.test/ b@c',
    );
  });
});
