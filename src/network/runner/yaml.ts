// The runner's YAML settings (yarn's `~/.yarnrc.yml`, RubyGems' `gemrc`) read line by line, as their writers
// lay them out (block mappings and sequences, one key a line): a key that names a secret goes with everything
// indented below it; a line this reading does not understand (a flow mapping, a complex key, a tab) goes
// too, with what is below it, so that nothing it cannot judge is shown. Pure.
import { withoutUrlCredentials } from '../../text/redact.js';
import { LINE_BREAK, unescapeKey } from './filter.js';

/** A block-mapping line `key: value` (the key plain or quoted), or undefined. */
const KEY_LINE =
  /^("(?:[^"\\]|\\.)*"|'(?:[^']|'')*'|[^\s#'"{}[\]&*!|>?%@`,-][^#]*?|-[^\s#][^#]*?)\s*:(?:\s+(.*))?$/;

interface Line {
  indent: number;
  /** The key, unquoted; undefined for a sequence item. */
  key?: string;
  /** The value after `key:` or `- `, comments not removed; '' for none. */
  value: string;
}

const unquote = (text: string): string => {
  const match = /^(["'])(.*)\1$/.exec(text.trim());
  if (!match) return text.trim();
  return match[1] === '"' ? unescapeKey(match[2]!) : match[2]!.replace(/''/g, "'");
};

/** A value without a trailing comment (`# …` after a space, outside quotes). */
const withoutComment = (value: string): string =>
  /^["']/.test(value)
    ? value.replace(/^("(?:[^"\\]|\\.)*"|'(?:[^']|'')*')\s*(?:#.*)?$/, '$1')
    : value.replace(/\s+#.*$/, '');

/** One line read: a key line, a sequence item (`- value`), or undefined for anything else. */
function readLine(line: string): Line | undefined {
  const indent = /^ */.exec(line)![0].length;
  const content = line.slice(indent);
  if (/^\t/.test(content)) return undefined;
  if (/^-(?:\s|$)/.test(content)) return { indent, value: withoutComment(content.slice(1).trim()) };
  const match = KEY_LINE.exec(content);
  return match
    ? { indent, key: unquote(match[1]!), value: withoutComment(match[2]?.trim() ?? '') }
    : undefined;
}

/** A key that is a URL (`"https://registry/": …`): its value is that registry's, a login when it is a scalar. */
const isUrlKey = (key: string): boolean => /^[a-z][\w+.-]*:\/\//i.test(key);

/** Whether a line may be shown where what is above it is: judged by its key, or an item by its first key. */
function mayShow(line: Line, isSecret: (key: string) => boolean): boolean {
  // A flow mapping (`corp: { npmAuthToken: … }`, after an anchor or a tag too) is not read here: it goes whole.
  const bare = line.value.replace(/^(?:[&!]\S*\s+)*/, '');
  if (/^[{[]/.test(bare) && bare.includes('{')) return false;
  if (line.key !== undefined) return !isSecret(line.key) && !(isUrlKey(line.key) && line.value !== '');
  // An item is judged by what it holds: its first key, or the item nested in it (`- - npmAuthToken: …`).
  const inner = readLine(line.value);
  if (inner === undefined) return true;
  return mayShow(inner, isSecret) && !(inner.key !== undefined && isUrlKey(inner.key));
}

/**
 * `text` with the keys `isSecret` names left out, with everything below them; a URL key with a value on its
 * own line (a login for that registry) left out too; comments and blank lines gone; a key left with nothing
 * below it and no value of its own left out; the credentials of every URL removed.
 */
export function filterYaml(text: string, isSecret: (key: string) => boolean): string {
  const kept: Array<{ line: string; indent: number; empty: boolean }> = [];
  // The open keys and items above the current line, and whether each is kept.
  const stack: Array<{ indent: number; kept: boolean; item: boolean }> = [];
  for (const raw of text.split(LINE_BREAK)) {
    if (/^\s*(?:#|$)/.test(raw) || /^(?:---|\.\.\.)\s*$/.test(raw)) continue;
    const line = readLine(raw);
    const indent = line?.indent ?? /^\s*/.exec(raw)![0].length;
    const item = line !== undefined && line.key === undefined;
    while (stack.length > 0 && (stack.at(-1)!.indent > indent || (stack.at(-1)!.indent === indent && !item)))
      stack.pop();
    if (item && stack.at(-1)?.item && stack.at(-1)!.indent === indent) stack.pop();
    const parent = stack.at(-1);
    const keep = line !== undefined && (parent ? parent.kept : !item) && mayShow(line, isSecret);
    stack.push({ indent, kept: keep, item });
    if (keep)
      kept.push({
        line: withoutUrlCredentials(raw.replace(/\s+$/, '')),
        indent,
        empty: line!.key !== undefined && /^(?:[&!][^\s]*\s*)*$/.test(line!.value),
      });
  }
  // A key left with nothing below it (its secrets gone) would read as null: it goes too.
  const shown: string[] = [];
  let next: { indent: number; item: boolean } | undefined;
  for (let i = kept.length - 1; i >= 0; i--) {
    const { line, indent, empty } = kept[i]!;
    const below = next !== undefined && (next.indent > indent || (next.indent === indent && next.item));
    if (empty && !below) continue;
    shown.unshift(line);
    next = { indent, item: /^\s*-(?:\s|$)/.test(line) };
  }
  return shown.length > 0 ? `${shown.join('\n')}\n` : '';
}

/**
 * The values of the keys `key` matches, at any depth: a key's own value, or the items of the sequence below
 * it (`:sources:` then `- https://…`); and, with `urlKeys`, every URL key (yarn's `npmRegistries`).
 */
export function yamlValues(text: string, key: RegExp, urlKeys = false): string[] {
  const values: string[] = [];
  let under: number | undefined;
  for (const raw of text.split(LINE_BREAK)) {
    if (/^\s*(?:#|$)/.test(raw)) continue;
    const line = readLine(raw);
    if (!line) continue;
    if (under !== undefined && (line.indent < under || (line.indent === under && line.key !== undefined)))
      under = undefined;
    if (line.key === undefined) {
      if (under !== undefined && line.value) values.push(unquote(line.value));
      continue;
    }
    if (urlKeys && isUrlKey(line.key)) values.push(line.key);
    if (!key.test(line.key)) continue;
    if (line.value) values.push(unquote(line.value));
    else under = line.indent;
  }
  return values.filter((value) => value !== '');
}
