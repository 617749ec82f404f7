// cargo's `config.toml` (and its older name `config`) read as TOML is laid out: `[table]` headers and
// `key = value` lines, a value running over several lines when it is an array, an inline table or a
// multi-line string. An entry goes whole when its key, its table's name or a key inside its inline table
// names a secret (cargo's `token`, `credential-provider`, `secret-key`, `global-credential-providers`, the
// `[credential-alias]` table, a proxy); a line this reading does not understand goes too. Pure.
import { LINE_BREAK } from './filter.js';
import { isSecretName, unescapeKey, withoutUrlSecrets } from './secret-keys.js';

/** A key (or a table's name, or one part of a dotted key) that names a secret. */
const isSecret = (part: string): boolean => isSecretName('cargo', part);

/**
 * Whether a table or key path is left out: one part names a secret, or it is under `[env]`, whose entries are
 * whatever variables the runner sets for builds, tokens among them, under any name.
 */
const isSecretPath = (parts: readonly string[]): boolean => parts[0] === 'env' || parts.some(isSecret);

/**
 * Where the value that starts at `lines[i]`, column `start`, ends: the index of its last line (arrays and
 * inline tables closed, multi-line strings ended, quotes and comments minded); undefined if a string is left
 * open at its line's end; -1 if it runs to the file's end (read once: a later value is not read through the
 * rest of the file again).
 */
function valueEnd(lines: readonly string[], i: number, start: number): number | undefined {
  let depth = 0;
  let quote: '"' | "'" | '"""' | "'''" | undefined;
  for (let n = i; n < lines.length; n++) {
    const line = lines[n]!;
    for (let c = n === i ? start : 0; c < line.length; c++) {
      const ch = line[c]!;
      if (quote) {
        if (quote === '"' && ch === '\\') c++;
        else if (quote.length === 3 && line.startsWith(quote, c)) {
          quote = undefined;
          c += 2;
        } else if (quote === '"""' && ch === '\\') c++;
        else if (ch === quote) quote = undefined;
      } else if (ch === '#') break;
      else if (line.startsWith('"""', c) || line.startsWith("'''", c)) {
        quote = line.slice(c, c + 3) as '"""';
        c += 2;
      } else if (ch === '"' || ch === "'") quote = ch;
      else if (ch === '[' || ch === '{') depth++;
      else if (ch === ']' || ch === '}') depth--;
    }
    if (quote === '"' || quote === "'") return undefined;
    if (!quote && depth <= 0) return n;
  }
  return -1;
}

/**
 * Where each string that starts in `text` ends: for the index of a `"` or `'`, the index of the quote that
 * closes it, or -1. A basic string's ends are found for every index at once, from the end back (a `"` ends a
 * string that reaches it; a `\` passes its next character on), so that no string is read again from each
 * quote inside it; a literal string ends at the next `'`. Asked in order of the index.
 */
function stringEnds(text: string): (at: number) => number {
  const basic = new Int32Array(text.length + 2).fill(-1);
  for (let i = text.length - 1; i >= 0; i--)
    basic[i] = text[i] === '"' ? i : text[i] === '\\' ? basic[i + 2]! : basic[i + 1]!;
  let literal = 0;
  return (at) => {
    if (text[at] === '"') return basic[at + 1]!;
    if (literal >= 0 && literal <= at) literal = text.indexOf("'", at + 1);
    return literal;
  };
}

/** The parts of a dotted key or a table's name (`registries."my reg".index`), unquoted. */
function keyParts(key: string): string[] {
  const parts: string[] = [];
  const endOf = stringEnds(key);
  for (let i = 0; i < key.length; i++) {
    const end = /["']/.test(key[i]!) ? endOf(i) : -1;
    if (end >= 0) {
      const inner = key.slice(i + 1, end);
      parts.push(key[i] === '"' ? unescapeKey(inner) : inner);
      i = end;
    } else if (/[^.\s"']/.test(key[i]!)) {
      let next = i + 1;
      while (next < key.length && /[^.\s"']/.test(key[next]!)) next++;
      parts.push(key.slice(i, next));
      i = next - 1;
    }
  }
  return parts;
}

/**
 * The keys inside an inline table value (`{ index = "…", token = "…" }` → index, token), quoted ones too;
 * text inside a string that looks like `word =` counts as well (such an entry goes, wrongly but safely).
 * A key is a string or a run of `[\w.-]` that `=` follows (spaces between); each is read once.
 */
function innerKeys(value: string): string[] {
  // Whether `=` comes next at each index, spaces skipped (from the end back, once).
  const equals = new Uint8Array(value.length + 1);
  for (let i = value.length - 1; i >= 0; i--)
    equals[i] = /\s/.test(value[i]!) ? equals[i + 1]! : value[i] === '=' ? 1 : 0;
  const keys: string[] = [];
  const endOf = stringEnds(value);
  let basicEnd = -1;
  for (let i = 0; i < value.length; i++) {
    if (!/["']/.test(value[i]!)) continue;
    const end = endOf(i);
    // A `"` inside a basic string (escaped) starts one that ends where it ends, its key a part of its
    // key: each such string is read once.
    if (end < 0 || (value[i] === '"' && end === basicEnd)) continue;
    if (value[i] === '"') basicEnd = end;
    if (equals[end + 1]) keys.push(value.slice(i, end + 1));
  }
  for (const run of value.matchAll(/[\w.-]+/g)) if (equals[run.index + run[0].length]) keys.push(run[0]);
  return keys.flatMap(keyParts);
}

/** `text` (a cargo config) with every entry that could hold a secret left out, comments gone, URL credentials removed. */
export function filterToml(text: string): string {
  const lines = text.split(LINE_BREAK);
  const kept: string[] = [];
  let table: string[] = [];
  let keepTable = true;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (/^\s*(?:#|$)/.test(line)) continue;
    // The name runs to the first `]` (spaces around it are no part of it: keyParts skips them).
    const header = /^\s*\[(\[?)([^\]]+)\](\]?)\s*(?:#[^]*)?$/.exec(line);
    if (header) {
      table = keyParts(header[2]!);
      keepTable = header[1] === header[3] && !isSecretPath(table);
      if (keepTable) kept.push(line.trim());
      continue;
    }
    const entry =
      /^\s*((?:"(?:[^"\\]|\\.)*"|'[^']*'|[\w-]+)(?:\s*\.\s*(?:"(?:[^"\\]|\\.)*"|'[^']*'|[\w-]+))*)\s*=\s*/.exec(
        line,
      );
    const end = entry ? valueEnd(lines, i, entry[0].length) : undefined;
    // A value that never ends takes the rest of the file with it (cargo cannot read it): nothing more shows.
    if (end === -1) break;
    if (!entry || end === undefined) {
      // Not understood: this line goes, and a value it may have opened with it (to the next header).
      while (i + 1 < lines.length && !/^\s*\[/.test(lines[i + 1]!)) i++;
      continue;
    }
    const value = lines
      .slice(i, end + 1)
      .join('\n')
      .slice(entry[0].length);
    const parts = [...table, ...keyParts(entry[1]!)];
    const secret = isSecretPath(parts) || innerKeys(value).some(isSecret);
    if (keepTable && !secret)
      for (const one of lines.slice(i, end + 1)) kept.push(withoutUrlSecrets(one.trimEnd()));
    i = end;
  }
  // A table whose every entry went is shown as an empty table: cargo reads it as none.
  return kept.length > 0 ? `${kept.join('\n')}\n` : '';
}

/**
 * The string values of the keys whose last part `key` matches, in tables and inline tables alike: each run of
 * `[\w-]` followed by `=` and a string (spaces between), read once, strings skipped.
 */
export function tomlValues(text: string, key: RegExp): string[] {
  const values: string[] = [];
  const endOf = stringEnds(text);
  let after = 0;
  for (const run of text.matchAll(/[\w-]+/g)) {
    if (run.index < after) continue;
    const between = /\s*=\s*(?=["'])/y;
    between.lastIndex = run.index + run[0].length;
    if (!between.test(text)) continue;
    const start = between.lastIndex;
    const end = endOf(start);
    if (end < 0) continue;
    after = end + 1;
    if (key.test(run[0])) values.push(text.slice(start + 1, end));
  }
  return values;
}
