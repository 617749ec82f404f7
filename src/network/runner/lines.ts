// The runner's settings that are one `key = value` a line: Gradle's `gradle.properties` (Java properties:
// `key=value`, `key: value` or `key value`, `#` and `!` comments, a `\` at the end going on to the next
// line), Go's environment file (`go env -w` writes `NAME=value`; Go reads only lines that start with a
// capital letter), and yarn classic's `~/.yarnrc` (`key value`, either maybe quoted). Pure.
import { LINE_BREAK } from './filter.js';
import { unescapeKey, unquote, withoutUrlSecrets } from './secret-keys.js';

export type LineFormat = 'properties' | 'goenv' | 'yarnrc';

/**
 * A key and its value, from one logical line (continuations joined); undefined for anything else. Each
 * pattern is anchored and its parts meet where their characters differ, and the value (`[^]*`) takes what is
 * left whatever it holds: a pattern fails or matches at once, never trying a line again another way.
 */
function entry(format: LineFormat, line: string): { key: string; value: string } | undefined {
  const match =
    format === 'properties'
      ? /^\s*((?:[^\s=:\\]|\\.)+)\s*(?:[=:]\s*|\s+|$)([^]*)$/.exec(line)
      : format === 'goenv'
        ? /^([A-Z][A-Za-z0-9_]*)=([^]*)$/.exec(line)
        : /^\s*("(?:[^"\\]|\\.)*"|[^\s"]+)(?:\s+([^]*))?$/.exec(line);
  if (!match) return undefined;
  return {
    key: format === 'goenv' ? match[1]! : unescapeKey(unquote(match[1]!, '"')),
    value: unquote(match[2] ?? '', '"'),
  };
}

/** How many backslashes `text` ends with (read back from its end, as far as they go). */
function trailingBackslashes(text: string): number {
  let count = 0;
  while (count < text.length && text[text.length - 1 - count] === '\\') count++;
  return count;
}

/**
 * The file's logical lines, each with the physical lines it is made of (a properties file's `\` joins them).
 * The backslashes a line ends with are counted once per physical line, and the pieces joined once.
 */
function logicalLines(format: LineFormat, text: string): Array<{ joined: string; raw: string[] }> {
  const result: Array<{ joined: string; raw: string[] }> = [];
  const physical = text.split(LINE_BREAK);
  for (let i = 0; i < physical.length; i++) {
    const raw = [physical[i]!];
    const pieces = [physical[i]!];
    let backslashes = trailingBackslashes(physical[i]!);
    // An odd number of backslashes at the end continues the line (properties only).
    while (format === 'properties' && backslashes % 2 === 1 && i + 1 < physical.length) {
      pieces.push(pieces.pop()!.slice(0, -1));
      const next = physical[++i]!.replace(/^\s+/, '');
      raw.push(physical[i]!);
      pieces.push(next);
      const own = trailingBackslashes(next);
      backslashes = own === next.length ? backslashes - 1 + own : own;
    }
    result.push({ joined: pieces.join(''), raw });
  }
  return result;
}

const isComment = (format: LineFormat, line: string): boolean =>
  format === 'properties' ? /^\s*(?:[#!]|$)/.test(line) : /^\s*(?:#|$)/.test(line);

/** `text` with the lines whose key `isSecret` names left out (a continued line whole), comments gone, URL credentials removed. */
export function filterLines(
  format: LineFormat,
  text: string,
  isSecret: (key: string, value: string) => boolean,
): string {
  const kept: string[] = [];
  for (const { joined, raw } of logicalLines(format, text)) {
    if (isComment(format, joined)) continue;
    const found = entry(format, joined);
    // One by one: a line continued 100 000 times would be too many arguments for one call.
    if (found && !isSecret(found.key, found.value))
      for (const line of raw) kept.push(withoutUrlSecrets(line.trimEnd()));
  }
  return kept.length > 0 ? `${kept.join('\n')}\n` : '';
}

/** The values of the keys `key` matches. */
export function lineValues(format: LineFormat, text: string, key: RegExp): string[] {
  return logicalLines(format, text).flatMap(({ joined }) => {
    const found = isComment(format, joined) ? undefined : entry(format, joined);
    return found && key.test(found.key) && found.value ? [found.value] : [];
  });
}
