// The runner's settings files as the tools may see them: npm's `.npmrc` and pip's `pip.conf` (both INI) with
// every line that could hold a secret left out (tokens, passwords, client keys and certificates, a proxy of
// the runner's own, per-registry credentials, comments), and the credentials of every URL removed; what is
// left (registries, scoped registries, CA files, `strict-ssl` and their kin) reaches the tools. Pure.
import { isSecretName, unescapeKey, unquote, withoutUrlSecrets } from './secret-keys.js';

/**
 * The settings files read here: npm's and pip's INI dialects (`key=value`, `//registry/:key=…`; `[section]`,
 * continuation lines), and Maven's `settings.xml`.
 */
export type SettingsKind = 'npm' | 'pip' | 'maven';

/**
 * The key of a `key = value` line (npm's `key[] = value` read as `key`; pip's `key: value` too), and where
 * its value starts; undefined for anything else. The key is what stands before the first separator, trimmed
 * (found by one search for a character, linear where a lazy key followed by `\s*=` is quadratic).
 */
function keyOf(kind: 'npm' | 'pip', line: string): { key: string; value: number } | undefined {
  const at = line.search(kind === 'pip' ? /[=:]/ : /=/);
  const raw = at < 0 ? '' : line.slice(0, at).trim();
  if (raw === '' || /^[;#[]/.test(raw)) return undefined;
  // Judged as the tool reads it: npm's ini parser takes the quotes off a key (`"//registry/:_authToken"`).
  const key = unquote(raw, `"'`, unescapeKey);
  return { key: key.replace(/\[\]$/, ''), value: at + 1 };
}

/**
 * A settings file's lines, split where its tool splits them: npm's ini, pip's configparser, Java properties
 * and YAML all take a lone `\r` for a line break too (split on `\n` alone, `registry=…\r_authToken=…` would be
 * judged as one line by its first key).
 */
export const LINE_BREAK = /\r\n|\r|\n/;

/** Whether a settings key is one the tools never see (`//registry/:anything` is npm's per-registry login). */
export function isSecretKey(kind: 'npm' | 'pip', key: string): boolean {
  return key.startsWith('//') || isSecretName(kind, key.replace(/^@[^:]+:/, ''));
}

/**
 * `text` (an `.npmrc` or a `pip.conf`) with only the lines the tools may see: section headers, and the
 * settings whose key names no secret, each URL without its credentials. A pip continuation line goes with
 * its key; comments and blank lines go.
 */
export function filterSettings(kind: SettingsKind, text: string): string {
  if (kind === 'maven') return filterMaven(text);
  const kept: string[] = [];
  let keep = false;
  for (const line of text.split(LINE_BREAK)) {
    if (/^\s*(?:[;#]|$)/.test(line)) continue;
    if (kind === 'pip' && /^\s/.test(line)) {
      if (keep) kept.push(withoutUrlSecrets(line));
      continue;
    }
    if (kind === 'pip' && /^\s*\[[^\]]*\]\s*$/.test(line)) {
      kept.push(line.trim());
      keep = false;
      continue;
    }
    const key = keyOf(kind, line)?.key;
    keep = key !== undefined && !isSecretKey(kind, key);
    if (keep) kept.push(withoutUrlSecrets(line.trim()));
  }
  return kept.length > 0 ? `${kept.join('\n')}\n` : '';
}

/** Maven's elements that hold a login or a key, and its proxies: each goes whole, with what it holds. */
const MAVEN_SECRET = new Set(['servers', 'proxies', 'password', 'privateKey', 'passphrase', 'username']);

/**
 * A Maven `settings.xml` without its `<servers>` (their usernames, passwords, private keys and passphrases)
 * and `<proxies>`, any such element elsewhere, comments, and URL credentials: its mirrors, repositories and
 * profiles stay. Read once from start to end, tag by tag (a lazy match from each opening tag to its closing
 * one reads the rest of the file again for every tag left open: quadratic). A comment or a secret element
 * left open would hide all after it, as Maven could read it: then nothing is shown.
 */
function filterMaven(xml: string): string {
  const kept: string[] = [];
  let from = 0;
  let skipping: { name: string; depth: number } | undefined;
  // The first `>` at or after the tag being read (-1: none is left), found once for all the tags before it.
  let gt = 0;
  for (let at = xml.indexOf('<'); at >= 0; at = xml.indexOf('<', at + 1)) {
    if (xml.startsWith('<!--', at)) {
      const end = xml.indexOf('-->', at + 4);
      if (end < 0) return '';
      if (!skipping) {
        kept.push(xml.slice(from, at));
        from = end + 3;
      }
      at = end + 2;
      continue;
    }
    const close = xml[at + 1] === '/';
    // A tag's name, read no further than the longest secret name and one character more.
    const nameAt = at + (close ? 2 : 1);
    const name = /^\w*/.exec(xml.slice(nameAt, nameAt + 12))![0];
    if (!MAVEN_SECRET.has(name)) continue;
    const nameEnd = nameAt + name.length;
    if (gt >= 0 && gt < nameEnd) gt = xml.indexOf('>', nameEnd);
    if (gt < 0) break;
    const selfClosing = xml[gt - 1] === '/' && gt - 1 >= nameEnd;
    if (!skipping && !close) {
      kept.push(xml.slice(from, at));
      if (selfClosing) from = gt + 1;
      else skipping = { name, depth: 1 };
    } else if (skipping?.name === name && !selfClosing) {
      skipping.depth += close ? -1 : 1;
      if (skipping.depth === 0) [skipping, from] = [undefined, gt + 1];
    }
    at = gt;
  }
  if (skipping) return '';
  kept.push(xml.slice(from));
  return withoutUrlSecrets(kept.join(''));
}

/**
 * The values of `key` in a settings file (`pip.conf`: in any section; continuation lines each a value), each
 * with the index of its line.
 */
export function settingEntries(
  kind: 'npm' | 'pip',
  text: string,
  key: RegExp,
): Array<{ value: string; line: number }> {
  const entries: Array<{ value: string; line: number }> = [];
  let current = false;
  for (const [index, line] of text.split(LINE_BREAK).entries()) {
    if (/^\s*(?:[;#]|$)/.test(line)) continue;
    if (kind === 'pip' && /^\s/.test(line)) {
      if (current) entries.push({ value: line.trim(), line: index });
      continue;
    }
    const setting = keyOf(kind, line);
    current = setting !== undefined && key.test(setting.key);
    const value = current ? unquote(line.slice(setting!.value), `"'`) : '';
    if (value) entries.push({ value, line: index });
  }
  return entries;
}

/** The values of `key` in a settings file (`pip.conf`: in any section; continuation lines each a value). */
export const settingValues = (kind: 'npm' | 'pip', text: string, key: RegExp): string[] =>
  settingEntries(kind, text, key).map(({ value }) => value);

/**
 * Whether `text` is a CA file the tools may be shown: PEM certificates and nothing else (never a private
 * key, whatever a setting pointed at).
 */
export function isCertificateFile(text: string): boolean {
  return (
    /-----BEGIN CERTIFICATE-----/.test(text) && !/PRIVATE KEY|-----BEGIN (?!CERTIFICATE-----)/.test(text)
  );
}
