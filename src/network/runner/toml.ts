// cargo's `config.toml` (and its older name `config`) read as TOML is laid out: `[table]` headers and
// `key = value` lines, a value running over several lines when it is an array, an inline table or a
// multi-line string. An entry goes whole when its key, its table's name or a key inside its inline table
// names a secret (cargo's `token`, `credential-provider`, `secret-key`, `global-credential-providers`, the
// `[credential-alias]` table, a proxy); a line this reading does not understand goes too. Pure.
import { withoutUrlCredentials } from '../../text/redact.js';
import { LINE_BREAK, unescapeKey } from './filter.js';

/** A key (or a table's name, or one part of a dotted key) that names a secret. */
const SECRET = /token|credential|secret|passw|auth|proxy|key/i;

/**
 * Whether a table or key path is left out: one part names a secret, or it is under `[env]`, whose entries are
 * whatever variables the runner sets for builds, tokens among them, under any name.
 */
const isSecretPath = (parts: readonly string[]): boolean =>
  parts[0] === 'env' || parts.some((part) => SECRET.test(part));

/**
 * Where the value that starts at `lines[i]`, column `start`, ends: the index of its last line (arrays and
 * inline tables closed, multi-line strings ended, quotes and comments minded); undefined if it never ends.
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
  return undefined;
}

/** The parts of a dotted key or a table's name (`registries."my reg".index`), unquoted. */
function keyParts(key: string): string[] {
  return [...key.matchAll(/"((?:[^"\\]|\\.)*)"|'([^']*)'|([^.\s"']+)/g)].map((m) =>
    m[1] !== undefined ? unescapeKey(m[1]) : (m[2] ?? m[3]!),
  );
}

/**
 * The keys inside an inline table value (`{ index = "…", token = "…" }` → index, token), quoted ones too;
 * text inside a string that looks like `word =` counts as well (such an entry goes, wrongly but safely).
 */
function innerKeys(value: string): string[] {
  return [...value.matchAll(/("(?:[^"\\]|\\.)*"|'[^']*'|[\w.-]+)\s*=/g)].flatMap((m) => keyParts(m[1]!));
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
    const header = /^\s*\[(\[?)\s*([^\]]+?)\s*\](\]?)\s*(?:#.*)?$/.exec(line);
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
    const secret = isSecretPath(parts) || innerKeys(value).some((key) => SECRET.test(key));
    if (keepTable && !secret)
      kept.push(...lines.slice(i, end + 1).map((one) => withoutUrlCredentials(one.trimEnd())));
    i = end;
  }
  // A table whose every entry went is shown as an empty table: cargo reads it as none.
  return kept.length > 0 ? `${kept.join('\n')}\n` : '';
}

/** The string values of the keys whose last part `key` matches, in tables and inline tables alike. */
export function tomlValues(text: string, key: RegExp): string[] {
  return [...text.matchAll(/([\w-]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|'([^']*)')/g)]
    .filter((m) => key.test(m[1]!))
    .map((m) => m[2] ?? m[3]!);
}
