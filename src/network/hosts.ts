// Host names and the rules that allow them: what `allowed_hosts` and the toolchains' configuration name,
// read into one shape, and whether a host and port fit one of them. Pure.
import { isIP } from 'node:net';

/** Where a rule came from: `allowed_hosts`, or the toolchain setting that named the host (`npm registry`…). */
export const ALLOWED_HOSTS = 'allowed_hosts';

export interface HostRule {
  /** Lower case, without a trailing dot, IPv6 without brackets; `*.example.com` for every name below it. */
  host: string;
  /** Only this port; absent, the web's two (80 and 443). */
  port?: number;
  /** `allowed_hosts`, or the setting that named it (`npm registry`, `GitHub`…). */
  source: string;
  /**
   * Named by the runner's own settings (its npm and pip configuration, its environment), never the
   * repository's: the host may lead to a loopback or private address, on the ports the rule allows.
   */
  runner?: true;
}

/** The ports a rule without a port of its own allows: plain HTTP and TLS, never ssh or a database. */
export const WEB_PORTS: readonly number[] = [80, 443];

const LABEL = /^(?!-)[a-z0-9_-]{1,63}(?<!-)$/;

/**
 * A host as a URL would hold it (lower case, IPv4 in dotted form even when written `127.1` or in hex, IPv6
 * compressed, without brackets or a trailing dot), or undefined when it is not a host name or an address.
 */
export function normalizeHost(raw: string): string | undefined {
  const trimmed = raw
    .trim()
    .replace(/\.$/, '')
    .replace(/^\[(.*)\]$/, '$1');
  if (trimmed === '' || /[\s/\\?#@%]/.test(trimmed)) return undefined;
  if (trimmed.includes(':') && isIP(trimmed) !== 6) return undefined; // a port is no part of a host
  const bracketed = isIP(trimmed) === 6 ? `[${trimmed}]` : trimmed;
  let host: string;
  try {
    host = new URL(`http://${bracketed}/`).hostname;
  } catch {
    return undefined;
  }
  if (host.startsWith('[')) return host.slice(1, -1);
  if (isIP(host) === 4) return host;
  return host.length <= 253 && host.split('.').every((label) => LABEL.test(label)) ? host : undefined;
}

/** `host`, `host:port`, `[v6]:port`, `*.example.com[:port]` or a URL, as a rule; undefined if it is none. */
export function parseHostEntry(entry: string, source: string): HostRule | undefined {
  const text = entry.trim();
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(text)) return ruleFromUrl(text, source);
  const match = /^(\*\.)?(\[[^\]]+\]|[^:]+|[0-9a-f:]+)(?::(\d{1,5}))?$/i.exec(text);
  if (!match) return undefined;
  const [, wildcard, name, portText] = match;
  const host = normalizeHost(name!.replace(/^\[|\]$/g, ''));
  if (!host || (wildcard && (isIP(host) !== 0 || !host.includes('.')))) return undefined;
  const port = portText === undefined ? undefined : Number(portText);
  if (port !== undefined && (port < 1 || port > 65_535)) return undefined;
  return { host: wildcard ? `*.${host}` : host, ...(port === undefined ? {} : { port }), source };
}

/**
 * The rule for the host of a URL a toolchain is configured with: its own port when the URL names one, else
 * the web's two. `sparse+https://` (cargo) and `git+https://` count as https. Undefined for anything but
 * HTTP(S) (a `file:` index, `direct`, `off`).
 */
export function ruleFromUrl(url: string, source: string): HostRule | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url.trim().replace(/^(sparse|git|registry)\+/i, ''));
  } catch {
    return undefined;
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return undefined;
  const host = normalizeHost(parsed.hostname.replace(/^\[|\]$/g, ''));
  if (!host) return undefined;
  return { host, ...(parsed.port ? { port: Number(parsed.port) } : {}), source };
}

/** `allowed_hosts` read: one entry per line or comma-separated; the problem when an entry is none. */
export function parseAllowedHosts(text: string): { rules: HostRule[] } | { problem: string } {
  const entries = text.split(/[\s,]+/).filter((entry) => entry !== '');
  const rules: HostRule[] = [];
  for (const entry of entries) {
    if (entry === '*' || entry.startsWith('*:'))
      return { problem: `allowed_hosts: '${entry}' would allow every host; set tool_network: all for that` };
    const rule = parseHostEntry(entry, ALLOWED_HOSTS);
    if (!rule)
      return {
        problem: `allowed_hosts: '${entry}' is not a host name, a *.example.com wildcard, an address or host:port`,
      };
    rules.push(rule);
  }
  return { rules };
}

/** Whether the rule's name covers `host` (already normalized): the same name, or one below a wildcard. */
export function nameFits(rule: HostRule, host: string): boolean {
  return rule.host.startsWith('*.') ? host.endsWith(rule.host.slice(1)) : rule.host === host;
}

/** Whether the rule lets `port` through. */
export function portFits(rule: HostRule, port: number): boolean {
  return rule.port === undefined ? WEB_PORTS.includes(port) : rule.port === port;
}

/** The rule as written in allowed_hosts (`host`, `host:port`, `[::1]:5432`). */
export function ruleText(rule: Pick<HostRule, 'host' | 'port'>): string {
  const host = isIP(rule.host) === 6 ? `[${rule.host}]` : rule.host;
  return rule.port === undefined ? host : `${host}:${rule.port}`;
}

/** The same rules without repeats (the first source of each host and port is kept). */
export function uniqueRules(rules: readonly HostRule[]): HostRule[] {
  const seen = new Set<string>();
  return rules.filter((rule) => {
    const key = ruleText(rule);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
