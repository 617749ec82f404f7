// The runner's YAML settings (yarn's `~/.yarnrc.yml`, RubyGems' `gemrc`) read line by line, as their writers
// lay them out (block mappings and sequences, one key a line): a key that names a secret goes with everything
// indented below it; a line this reading does not understand (a flow mapping, a complex key, a tab) goes
// too, with what is below it, so that nothing it cannot judge is shown. Pure.
import { LINE_BREAK } from './filter.js';
import { unescapeKey, unquote, withoutUrlSecrets } from './secret-keys.js';

interface Line {
  indent: number;
  /** The key, unquoted; undefined for a sequence item. */
  key?: string;
  /** The value after `key:` or `- `, comments not removed; '' for none. */
  value: string;
}

/** A YAML scalar, unquoted: a double-quoted one's escapes resolved, a single-quoted one's `''` read as `'`. */
const unquoteYaml = (text: string): string =>
  unquote(text, `"'`, (inner, quote) => (quote === '"' ? unescapeKey(inner) : inner.replace(/''/g, "'")));

/** Where the quoted scalar that starts `text` ends (the index after its closing quote), or -1. */
function quotedEnd(text: string): number {
  const quote = text[0];
  for (let i = 1; i < text.length; i++) {
    if (quote === '"' && text[i] === '\\') i++;
    else if (text[i] === quote && quote === "'" && text[i + 1] === "'") i++;
    else if (text[i] === quote) return i + 1;
  }
  return -1;
}

/**
 * A block-mapping line `key: value` (the key plain or quoted): the key as written, and what follows the `:`;
 * undefined for anything else. The key ends at the first `:` followed by a space or the line's end (a plain
 * key holds no `#` before it), or with its closing quote; read once from the start (a lazy key followed by
 * `\s*:` tries every space after it again from each character: quadratic).
 */
function keyLine(content: string): { key: string; rest: string } | undefined {
  let colon: number;
  let key: string;
  if (content[0] === '"' || content[0] === "'") {
    const end = quotedEnd(content);
    if (end < 0) return undefined;
    colon = end + /^\s*/.exec(content.slice(end))![0].length;
    if (content[colon] !== ':') return undefined;
    key = content.slice(0, end);
  } else {
    // A plain key starts with no indicator (a `-` only when no space or `#` follows it).
    const first = /^(?:[^\s#'"{}[\]&*!|>?%@`,-]|-[^\s#])/.exec(content)?.[0].length;
    if (first === undefined) return undefined;
    colon = -1;
    for (let i = first; i < content.length && colon < 0; i++) {
      if (content[i] === '#') return undefined;
      if (content[i] === ':' && (i + 1 === content.length || /\s/.test(content[i + 1]!))) colon = i;
    }
    if (colon < 0) return undefined;
    key = content.slice(0, colon).trimEnd();
  }
  const rest = content.slice(colon + 1);
  return rest === '' || /^\s/.test(rest) ? { key, rest } : undefined;
}

/** A value without a trailing comment (`# …` after a space, outside quotes), found in one pass. */
function withoutComment(value: string): string {
  if (/^["']/.test(value)) {
    const end = quotedEnd(value);
    return end >= 0 && /^\s*(?:#[^]*)?$/.test(value.slice(end)) ? value.slice(0, end) : value;
  }
  for (let i = 1; i < value.length; i++)
    if (value[i] === '#' && /\s/.test(value[i - 1]!)) return value.slice(0, i).trimEnd();
  return value;
}

/** A value without the anchors and tags before it (`&anchor !tag {…}` → `{…}`), read token by token. */
function withoutProperties(value: string): string {
  const property = /[&!]\S*(?:\s+|$)/y;
  let at = 0;
  for (property.lastIndex = 0; at < value.length && property.test(value); property.lastIndex = at)
    at = property.lastIndex;
  return value.slice(at);
}

/** One line read: a key line, a sequence item (`- value`), or undefined for anything else. */
function readLine(line: string): Line | undefined {
  const indent = /^ */.exec(line)![0].length;
  const content = line.slice(indent);
  if (/^\t/.test(content)) return undefined;
  if (/^-(?:\s|$)/.test(content)) return { indent, value: withoutComment(content.slice(1).trim()) };
  const match = keyLine(content);
  return match
    ? { indent, key: unquoteYaml(match.key), value: withoutComment(match.rest.trim()) }
    : undefined;
}

/** A key that is a URL (`"https://registry/": …`): its value is that registry's, a login when it is a scalar. */
const isUrlKey = (key: string): boolean => /^[a-z][\w+.-]*:\/\//i.test(key);

/** Whether a line may be shown where what is above it is: judged by its key, or an item by its first key. */
function mayShow(line: Line, isSecret: (key: string) => boolean): boolean {
  // A flow mapping (`corp: { npmAuthToken: … }`, after an anchor or a tag too) is not read here: it goes whole.
  const isFlow = (value: string) => /^[{[]/.test(withoutProperties(value)) && value.includes('{');
  if (isFlow(line.value)) return false;
  if (line.key !== undefined) return !isSecret(line.key) && !(isUrlKey(line.key) && line.value !== '');
  // An item is judged by what it holds: its first key, or the item nested in it (`- - npmAuthToken: …`), all
  // its dashes read at once (an item's value read again for each dash would be quadratic).
  const held = line.value.replace(/^(?:-(?:\s+|$))+/, '');
  if (isFlow(held)) return false;
  const inner = readLine(held);
  return inner?.key === undefined || (!isFlow(inner.value) && !isSecret(inner.key) && !isUrlKey(inner.key));
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
        line: withoutUrlSecrets(raw.trimEnd()),
        indent,
        empty: line!.key !== undefined && withoutProperties(line!.value) === '',
      });
  }
  // A key left with nothing below it (its secrets gone) would read as null: it goes too.
  const shown: string[] = [];
  let next: { indent: number; item: boolean } | undefined;
  for (let i = kept.length - 1; i >= 0; i--) {
    const { line, indent, empty } = kept[i]!;
    const below = next !== undefined && (next.indent > indent || (next.indent === indent && next.item));
    if (empty && !below) continue;
    shown.push(line);
    next = { indent, item: /^\s*-(?:\s|$)/.test(line) };
  }
  return shown.length > 0 ? `${shown.reverse().join('\n')}\n` : '';
}

/**
 * The values of the keys `key` matches, at any depth, each with the index of its line: a key's own value, or
 * the items of the sequence below it (`:sources:` then `- https://…`); and, with `urlKeys`, every URL key
 * (yarn's `npmRegistries`).
 */
export function yamlEntries(
  text: string,
  key: RegExp,
  urlKeys = false,
): Array<{ value: string; line: number }> {
  const entries: Array<{ value: string; line: number }> = [];
  let under: number | undefined;
  for (const [index, raw] of text.split(LINE_BREAK).entries()) {
    if (/^\s*(?:#|$)/.test(raw)) continue;
    const line = readLine(raw);
    if (!line) continue;
    if (under !== undefined && (line.indent < under || (line.indent === under && line.key !== undefined)))
      under = undefined;
    const add = (value: string) => value !== '' && entries.push({ value, line: index });
    if (line.key === undefined) {
      if (under !== undefined && line.value) add(unquoteYaml(line.value));
      continue;
    }
    if (urlKeys && isUrlKey(line.key)) add(line.key);
    if (!key.test(line.key)) continue;
    if (line.value) add(unquoteYaml(line.value));
    else under = line.indent;
  }
  return entries;
}

/** The values of the keys `key` matches (yamlEntries without their lines). */
export const yamlValues = (text: string, key: RegExp, urlKeys = false): string[] =>
  yamlEntries(text, key, urlKeys).map(({ value }) => value);
