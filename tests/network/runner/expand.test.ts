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
