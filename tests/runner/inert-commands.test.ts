// The runner's two command forms, as actions/runner's ActionCommand reads them, never survive in a log line.
import { describe, expect, it } from 'vitest';
import { inertCommands } from '../../src/runner/inert-commands.js';

/** A line the runner would take as a command: `::name…::` after leading blanks, or `##[name…]` anywhere. */
function readsAsCommand(line: string): boolean {
  const skipped = line.replace(/[\p{Cf}\p{Cc}\p{Mn}\p{Me}]/gu, '');
  return /^\s*::[^:\s]+( [^:]*)?::/.test(skipped) || /##\[[^\]\s]+/.test(skipped);
}

const ATTACKS = [
  '::add-mask::everything',
  '    ::stop-commands::x',
  '\t::error file=SECURITY.md,line=1::planted',
  '::set-output name=x::1',
  '::ADD-MASK::upper case',
  '\u00a0\u2003::warning::unicode blanks',
  ':\u200b:add-mask::zero width between',
  '\u200b::group::zero width before',
  'text ##[error]old form mid-line',
  '#\u00ad#[warning]soft hyphen',
  '###[debug]three hashes',
];

describe('inertCommands', () => {
  it.each(ATTACKS)('leaves no command in %j', (attack) => {
    const out = inertCommands(attack);
    expect(out.split(/\r\n|\r|\n/).filter(readsAsCommand)).toEqual([]);
  });

  it('splits where the runner does: a lone \\r starts a line that is made inert too', () => {
    const out = inertCommands('progress 10%\r::add-mask::x\r\n##[error]y\nplain');
    expect(out).toBe('progress 10%\r: :add-mask::x\r\n## [error]y\nplain');
  });

  it('keeps ordinary text as written', () => {
    const text = 'a::b, std::vector, # heading, [x]: y, ::\u00e9';
    expect(inertCommands('C++ std::string and a::b and #[attr]')).toBe(
      'C++ std::string and a::b and #[attr]',
    );
    expect(inertCommands(text)).toBe(text.replace(/^::/, ': :'));
  });
});
