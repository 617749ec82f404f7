import { describe, expect, it } from 'vitest';
import { inertTerminal } from '../../src/text/inert-terminal.js';
import { foreignControls } from '../support/terminal.js';

describe('inertTerminal', () => {
  it.each([
    [
      'a line erase and cursor move (hides what came before)',
      'rm -rf /\u001b[2K\u001b[1Gnpm test',
      'rm -rf /\\x1b[2K\\x1b[1Gnpm test',
    ],
    ['an OSC 0 window title, ended by BEL', '\u001b]0;owned\u0007', '\\x1b]0;owned\\x07'],
    ['an OSC 52 clipboard write, ended by ST', '\u001b]52;c;Y3VybA==\u001b\\', '\\x1b]52;c;Y3VybA==\\x1b\\'],
    ['a C1 CSI and OSC', '\u009b31m\u009d0;x\u009c', '\\x9b31m\\x9d0;x\\x9c'],
    ['a carriage return that overwrites the line', 'real\rfake', 'real\\x0dfake'],
    ['backspaces and DEL', 'ab\b\b\u007f', 'ab\\x08\\x08\\x7f'],
    ['NUL, vertical tab and form feed', '\u0000\u000b\u000c', '\\x00\\x0b\\x0c'],
  ])('shows %s as text', (_case, input, output) => {
    expect(inertTerminal(input)).toBe(output);
  });

  it('keeps tabs, line feeds and everything printable; a CRLF is a line end', () => {
    expect(inertTerminal('a\tb\nc\r\nd ✔ é 日本 \u00a0')).toBe('a\tb\nc\nd ✔ é 日本 \u00a0');
  });

  it('leaves no control character but tab and line feed, whatever it is given', () => {
    const all = Array.from({ length: 0xa0 }, (_, code) => String.fromCharCode(code)).join('');
    expect(foreignControls(inertTerminal(all))).toEqual([]);
  });
});
