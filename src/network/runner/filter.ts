// The runner's settings files as the tools may see them: npm's `.npmrc` and pip's `pip.conf` (both INI) with
// every line that could hold a secret left out (tokens, passwords, client keys and certificates, a proxy of
// the runner's own, per-registry credentials, comments), and the credentials of every URL removed; what is
// left (registries, scoped registries, CA files, `strict-ssl` and their kin) reaches the tools. Pure.
import { withoutUrlCredentials } from '../../text/redact.js';

/**
 * The settings files read here: npm's and pip's INI dialects (`key=value`, `//registry/:key=…`; `[section]`,
 * continuation lines), and Maven's `settings.xml`.
 */
export type SettingsKind = 'npm' | 'pip' | 'maven';

/** A key left out, whatever its value: it names a credential, a client identity or a proxy. */
const SECRET_KEY: Record<'npm' | 'pip', RegExp> = {
  // npm's `cert` and `key` are the client's certificate and key (its CA is `ca` / `cafile`).
  npm: /auth|token|passw|secret|credential|otp|proxy|^_|^(?:username|email|cert|certfile|key|keyfile)$/i,
  // pip's `cert` is the CA bundle it trusts; `client-cert` holds the client's key.
  pip: /auth|token|passw|secret|credential|proxy|^client[-_]cert$/i,
};

/**
 * The key of a `key = value` line (npm's `key[] = value` read as `key`; pip's `key: value` too), and where
 * its value starts; undefined for anything else.
 */
function keyOf(kind: SettingsKind, line: string): { key: string; value: number } | undefined {
  const match = (kind === 'pip' ? /^\s*([^=:\s;#[][^=:]*?)\s*[=:]/ : /^\s*([^=\s;#[][^=]*?)\s*=/).exec(line);
  if (!match) return undefined;
  // Judged as the tool reads it: npm's ini parser takes the quotes off a key (`"//registry/:_authToken"`).
  const key = match[1]!.replace(/^(["'])(.*)\1$/, (_whole, _quote: string, inner: string) =>
    unescapeKey(inner),
  );
  return { key: key.replace(/\[\]$/, ''), value: match[0].length };
}

/**
 * A settings file's lines, split where its tool splits them: npm's ini, pip's configparser, Java properties
 * and YAML all take a lone `\r` for a line break too (split on `\n` alone, `registry=…\r_authToken=…` would be
 * judged as one line by its first key).
 */
export const LINE_BREAK = /\r\n|\r|\n/;

/** Whether a settings key is one the tools never see (`//registry/:anything` is npm's per-registry login). */
export function isSecretKey(kind: 'npm' | 'pip', key: string): boolean {
  return key.startsWith('//') || SECRET_KEY[kind].test(key.replace(/^@[^:]+:/, ''));
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
      if (keep) kept.push(withoutUrlCredentials(line));
      continue;
    }
    if (kind === 'pip' && /^\s*\[[^\]]*\]\s*$/.test(line)) {
      kept.push(line.trim());
      keep = false;
      continue;
    }
    const key = keyOf(kind, line)?.key;
    keep = key !== undefined && !isSecretKey(kind, key);
    if (keep) kept.push(withoutUrlCredentials(line.trim()));
  }
  return kept.length > 0 ? `${kept.join('\n')}\n` : '';
}

/**
 * A Maven `settings.xml` without its `<servers>` (their usernames, passwords, private keys and passphrases)
 * and `<proxies>`, any such element elsewhere, comments, and URL credentials: its mirrors, repositories and
 * profiles stay.
 */
function filterMaven(xml: string): string {
  const secret = 'servers|proxies|password|privateKey|passphrase|username';
  // A secret element left open (no closing tag) would keep all after it: then nothing is shown.
  if (unclosed(xml.replace(/<!--[\s\S]*?-->/g, ''), secret)) return '';
  return withoutUrlCredentials(
    xml
      .replace(/<!--[\s\S]*?-->/g, '')
      .replace(new RegExp(`<(${secret})\\b[^>]*?(?:/>|>[\\s\\S]*?</\\1\\s*>)`, 'g'), ''),
  );
}

/** Whether an element `names` lists is opened more often than it is closed (counted in one pass). */
function unclosed(xml: string, names: string): boolean {
  const depth = new Map<string, number>();
  for (const [, close, name, selfClosing] of xml.matchAll(new RegExp(`<(/?)(${names})\\b[^>]*?(/?)>`, 'g'))) {
    if (selfClosing) continue;
    depth.set(name!, (depth.get(name!) ?? 0) + (close ? -1 : 1));
  }
  return [...depth.values()].some((open) => open > 0);
}

/** The values of `key` in a settings file (`pip.conf`: in any section; continuation lines each a value). */
export function settingValues(kind: SettingsKind, text: string, key: RegExp): string[] {
  const values: string[] = [];
  let current = false;
  for (const line of text.split(LINE_BREAK)) {
    if (/^\s*(?:[;#]|$)/.test(line)) continue;
    if (kind === 'pip' && /^\s/.test(line)) {
      if (current) values.push(line.trim());
      continue;
    }
    const setting = keyOf(kind, line);
    current = setting !== undefined && key.test(setting.key);
    const value = current ? line.slice(setting!.value).trim() : '';
    if (value) values.push(value.replace(/^(["'])(.*)\1$/, '$2'));
  }
  return values;
}

/**
 * Whether `text` is a CA file the tools may be shown: PEM certificates and nothing else (never a private
 * key, whatever a setting pointed at).
 */
export function isCertificateFile(text: string): boolean {
  return (
    /-----BEGIN CERTIFICATE-----/.test(text) && !/PRIVATE KEY|-----BEGIN (?!CERTIFICATE-----)/.test(text)
  );
}

/**
 * A key's escapes resolved (`\uXXXX`, `\UXXXXXXXX`, `\xXX`, `\c`), so that a key is judged as its toolchain
 * reads it (`npmAuth\u0054oken` in a YAML or TOML quoted key, or a Java properties key, is `npmAuthToken`).
 */
export function unescapeKey(text: string): string {
  return text.replace(
    /\\(?:u([0-9a-fA-F]{4})|U([0-9a-fA-F]{8})|x([0-9a-fA-F]{2})|(.))/g,
    (_whole, u?: string, wide?: string, byte?: string, other?: string) => {
      const code = u ?? wide ?? byte;
      return code ? String.fromCodePoint(Math.min(parseInt(code, 16), 0x10ffff)) : other!;
    },
  );
}
