import { describe, expect, it } from 'vitest';
import { paint, screen, shouldColor } from '../../src/terminal/screen.js';

function printed(color: boolean, ...spans: Parameters<ReturnType<typeof screen>['print']>): string[] {
  const out: string[] = [];
  screen((text) => out.push(text), color).print(...spans);
  return out;
}

describe('screen', () => {
  it('hands each print to its writer whole, every span made inert', () => {
    expect(printed(false, '  · bash \u001b[2K\u001b[1Gnpm test', '\n')).toEqual([
      '  · bash \\x1b[2K\\x1b[1Gnpm test\n',
    ]);
  });

  it('styles painted text only when colour is asked for, after making it inert', () => {
    const title = paint('Plan \u001b]0;owned\u0007', 'bold', 'cyan');
    expect(printed(true, title)).toEqual(['\u001b[1m\u001b[36mPlan \\x1b]0;owned\\x07\u001b[39m\u001b[22m']);
    expect(printed(false, title)).toEqual(['Plan \\x1b]0;owned\\x07']);
    expect(printed(true, paint('faint', 'dim'), ' plain')).toEqual(['\u001b[2mfaint\u001b[22m plain']);
  });
});

describe('shouldColor', () => {
  const tty = { isTTY: true };
  const pipe = { isTTY: false };

  it.each([
    ['a terminal', tty, {}, true],
    ['a pipe', pipe, {}, false],
    ['a terminal with NO_COLOR', tty, { NO_COLOR: '1' }, false],
    ['a terminal with an empty NO_COLOR', tty, { NO_COLOR: '' }, true],
    ['a dumb terminal', tty, { TERM: 'dumb' }, false],
    ['a pipe with FORCE_COLOR=1', pipe, { FORCE_COLOR: '1' }, true],
    ['a pipe with an empty FORCE_COLOR', pipe, { FORCE_COLOR: '' }, true],
    ['a terminal with FORCE_COLOR=0', tty, { FORCE_COLOR: '0' }, false],
    ['a terminal with FORCE_COLOR=false', tty, { FORCE_COLOR: 'false' }, false],
    ['FORCE_COLOR and NO_COLOR together', pipe, { FORCE_COLOR: '1', NO_COLOR: '1' }, true],
  ] as const)('%s', (_case, stream, env, expected) => {
    expect(shouldColor(stream, env)).toBe(expected);
  });
});
