// How the settings' keys are judged, for every toolchain from one table: the words that make a key (or a
// JVM argument's property) a secret's, and a key or value read as its toolchain reads it (quotes taken off,
// escapes resolved). Every test here is linear in what it reads: literal words, and scans that walk the text
// once (a settings file comes from the runner's HOME, which an earlier workflow step may have filled). Pure.
import { withoutUrlCredentials } from '../../text/redact.js';

/** The settings judged by words: each toolchain's keys, and the system properties in Gradle's JVM arguments. */
export type SecretKind = 'npm' | 'pip' | 'yarn' | 'gem' | 'gradle' | 'gradle-jvm' | 'cargo' | 'go';

/**
 * Words that make a key a secret's wherever they stand in it (case aside), and the settings that judge
 * keys by them. A toolchain's own spellings: npm's `_auth`, yarn's `npmAuthIdent`, RubyGems'
 * `:rubygems_api_key:`, Gradle's `systemProp.https.proxyUser`, cargo's `credential-provider`, Go's GOAUTH.
 */
const SECRET_WORDS: Record<string, readonly SecretKind[]> = {
  token: ['npm', 'pip', 'yarn', 'gem', 'gradle', 'gradle-jvm', 'cargo', 'go'],
  secret: ['npm', 'pip', 'yarn', 'gem', 'gradle', 'gradle-jvm', 'cargo', 'go'],
  passw: ['npm', 'pip', 'yarn', 'gem', 'gradle', 'gradle-jvm', 'cargo'],
  credential: ['npm', 'pip', 'yarn', 'gem', 'gradle', 'gradle-jvm', 'cargo'],
  auth: ['npm', 'pip', 'gem', 'gradle', 'cargo', 'go'],
  proxy: ['npm', 'pip', 'yarn', 'gem', 'gradle', 'cargo'],
  key: ['gem', 'gradle', 'cargo', 'go'],
  pwd: ['gradle', 'gradle-jvm'],
  otp: ['npm', 'gem'],
  ident: ['yarn'],
  client_cert: ['gem'],
  user: ['gradle'],
  login: ['gradle'],
  // Go's variables are short: GOPASS…, GOCRED… (`pass` and `cred` hold `passw` and `credential`).
  pass: ['go'],
  cred: ['go'],
};

/**
 * Whole keys that are a secret's though no word above is in them: npm's client certificate and key (its CA
 * is `ca` / `cafile`) and its login's name, pip's client certificate (its `cert` is the CA bundle it trusts),
 * yarn's client certificate and key.
 */
const SECRET_NAMES: Partial<Record<SecretKind, readonly string[]>> = {
  npm: ['username', 'email', 'cert', 'certfile', 'key', 'keyfile'],
  pip: ['client-cert', 'client_cert'],
  yarn: ['httpscertfilepath', 'httpskeyfilepath'],
};

const WORDS = new Map<SecretKind, RegExp>();

/** The words of `kind`, as one pattern of literals (no quantifier: linear in the key). */
function words(kind: SecretKind): RegExp {
  let pattern = WORDS.get(kind);
  if (!pattern) {
    const listed = Object.entries(SECRET_WORDS).filter(([, kinds]) => kinds.includes(kind));
    pattern = new RegExp(listed.map(([word]) => word).join('|'), 'i');
    WORDS.set(kind, pattern);
  }
  return pattern;
}

/** Whether a key names a secret for `kind` (npm's keys that start with `_`, `_auth` and its kin, too). */
export function isSecretName(kind: Exclude<SecretKind, 'gradle-jvm'>, key: string): boolean {
  return (
    words(kind).test(key) ||
    (SECRET_NAMES[kind]?.includes(key.toLowerCase()) ?? false) ||
    (kind === 'npm' && key.startsWith('_'))
  );
}

/**
 * Whether a value carries a `-Dname=value` whose name names a secret (Gradle's `org.gradle.jvmargs`): each
 * run of characters other than whitespace and `=` is read once, and judged from its first `-D` (or `-d`) on when an
 * `=` ends it.
 */
export function hasSecretProperty(value: string): boolean {
  for (const run of value.matchAll(/[^\s=]+/g)) {
    const at = run[0].search(/-d/i);
    if (at >= 0 && value[run.index + run[0].length] === '=' && words('gradle-jvm').test(run[0].slice(at + 2)))
      return true;
  }
  return false;
}

/**
 * `text` trimmed, and without the quotes around it when it is quoted with one of `quotes` (the same one at
 * both ends): what is inside is read by `read`, given the quote (as it is, by default).
 */
export function unquote(
  text: string,
  quotes: string,
  read: (inner: string, quote: string) => string = (inner) => inner,
): string {
  const trimmed = text.trim();
  const quote = trimmed[0];
  return trimmed.length >= 2 && quote !== undefined && quotes.includes(quote) && trimmed.endsWith(quote)
    ? read(trimmed.slice(1, -1), quote)
    : trimmed;
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

/**
 * `text` with every URL's login and query removed: a registry's token may be in either
 * (`https://user:token@host/`, `https://host/path?token=…`).
 */
export const withoutUrlSecrets = (text: string): string => withoutUrlCredentials(text, { query: true });
