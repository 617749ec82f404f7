// Variables in settings values resolved as npm and yarn resolve them.
import { describe, expect, it } from 'vitest';
import { expandNpm, expandYarn } from '../../../src/network/runner/expand.js';

const env = { HOME: '/home/r', EMPTY: '' };

describe('expandNpm', () => {
  it('resolves ${NAME}, leaves an unset one, empties ${NAME?}, and keeps an escaped one', () => {
    expect(expandNpm('${HOME}/ca.pem', env)).toBe('/home/r/ca.pem');
    expect(expandNpm('${UNSET}/ca.pem', env)).toBe('${UNSET}/ca.pem');
    expect(expandNpm('${UNSET?}/ca.pem', env)).toBe('/ca.pem');
    expect(expandNpm('\\${HOME}/ca.pem', env)).toBe('\\${HOME}/ca.pem');
    expect(expandNpm('$HOME/ca.pem', env)).toBe('$HOME/ca.pem');
  });
});

describe('expandYarn', () => {
  it('resolves ${NAME}, its fallbacks, and stops at an unset one as yarn does', () => {
    expect(expandYarn('${HOME}/ca.pem', env)).toBe('/home/r/ca.pem');
    expect(expandYarn('${UNSET}/ca.pem', env)).toBeUndefined();
    expect(expandYarn('${UNSET:-/etc}/ca.pem', env)).toBe('/etc/ca.pem');
    expect(expandYarn('${EMPTY:-/etc}/ca.pem', env)).toBe('/etc/ca.pem');
    expect(expandYarn('${EMPTY-/etc}/ca.pem', env)).toBe('/ca.pem');
  });
});

describe('on hostile values (200 kB each, read once)', () => {
  it('counts the backslashes before a variable once', () => {
    const even = '\\'.repeat(200_000);
    expect(expandNpm(`${even}\${HOME}/ca.pem`, env)).toBe(`${even}/home/r/ca.pem`);
    expect(expandNpm(`${even}\\\${HOME}`, env)).toBe(`${even}\\\${HOME}`);
    expect(expandNpm(even, env)).toBe(even);
  });

  it('reads fallbacks no `}` ends once', () => {
    const open = '${A-'.repeat(50_000);
    expect(expandYarn(open, env)).toBe(open);
    expect(expandYarn(`\${HOME}/${open}`, env)).toBe(`/home/r/${open}`);
    // A fallback runs to the first `}`, as yarn reads it: everything before is the first variable's.
    expect(expandYarn(`${open}\${HOME:-x}`, env)).toBe(`${'${A-'.repeat(49_999)}\${HOME:-x`);
  });
});
