// The allowlist's decisions, first on the name a tool asked for and then on each address that name leads
// to. Pure: no lookup and no traffic happens here, so every rule is tested on its decision alone.
import { isIP } from 'node:net';
import { addressKind, kindWords } from './addresses.js';
import {
  ALLOWED_HOSTS,
  nameFits,
  normalizeHost,
  portFits,
  ruleText,
  WEB_PORTS,
  type HostRule,
} from './hosts.js';

export interface Allowlist {
  rules: readonly HostRule[];
  /**
   * Hosts the tools reach only when allowed_hosts itself names them, whatever else would allow them: the
   * model's endpoint and GitHub's API (with them a tool could spend the run's model budget, or act on GitHub
   * with a token it was handed).
   */
  guarded: ReadonlyArray<{ host: string; what: string }>;
  /** The toolchains that had not said which registries they use when the list was made: theirs are missing. */
  unanswered?: readonly string[];
}

/** Why a request is refused, and the allowed_hosts entry that would let it through, where one would. */
export interface Refusal {
  reason: string;
  allow?: string;
}

/** The rule that allows `host:port`, or why none does. */
export type NameVerdict = { host: string; rule: HostRule } | { refused: Refusal };

/** An entry for allowed_hosts that would allow `host:port`: the host alone for the web's ports. */
function entryFor(host: string, port: number): string {
  return ruleText({ host, ...(WEB_PORTS.includes(port) ? {} : { port }) });
}

/** Decides on the name (and port) a tool asked for, before any lookup. */
export function ruleFor(allowlist: Allowlist, requested: string, port: number): NameVerdict {
  const host = normalizeHost(requested.replace(/^\[|\]$/g, ''));
  if (!host) return { refused: { reason: `${JSON.stringify(requested.slice(0, 80))} is not a host name` } };
  const guarded = allowlist.guarded.find((entry) => entry.host === host);
  const named = allowlist.rules.filter(
    (rule) => nameFits(rule, host) && (!guarded || rule.source === ALLOWED_HOSTS),
  );
  const allow = entryFor(host, port);
  if (named.length === 0) {
    const reason = guarded
      ? `${host} is ${guarded.what}: the tools reach it only when allowed_hosts names it`
      : isIP(host)
        ? `${host} is an IP address that the allowlist does not name (it allows host names)`
        : `${host} is not in the allowlist`;
    return { refused: { reason, allow } };
  }
  // An exact name before a wildcard, so that a host's own port rule is the one used.
  const fitting = named
    .filter((rule) => portFits(rule, port))
    .sort((a, b) => Number(a.host.startsWith('*.')) - Number(b.host.startsWith('*.')));
  const rule = fitting[0];
  if (!rule)
    return {
      refused: {
        reason: `port ${port} of ${host} is not allowed (a host listed without a port allows 80 and 443)`,
        allow,
      },
    };
  return { host, rule };
}

/**
 * Decides on one address `host` led to under `rule`. A public address is fine. A loopback, private or
 * link-local one only for a host the maintainer named exactly in allowed_hosts: a wildcard, a registry the
 * repository's configuration named, or a rebinding answer must not lead a tool to the runner's own services
 * or the cloud's metadata. A registry the runner's own settings name (`rule.runner`: the organization's
 * mirror) may lead to a loopback or private address, on the ports its rule allows, never a link-local one.
 * A reserved or multicast address never. `trusted` skips the check (a test's resolver map alone).
 */
export function addressRefusal(
  rule: HostRule,
  host: string,
  port: number,
  address: string,
  trusted = false,
): Refusal | undefined {
  if (trusted) return undefined;
  const kind = addressKind(address);
  if (kind === 'public') return undefined;
  const named = rule.source === ALLOWED_HOSTS && !rule.host.startsWith('*.');
  if (kind === 'reserved')
    return { reason: `${host} resolves to ${kindWords(kind)} (${address}), which no tool may reach` };
  if (named || (rule.runner && (kind === 'loopback' || kind === 'private'))) return undefined;
  return {
    reason: `${host} resolves to ${kindWords(kind)} (${address}); only a host named in allowed_hosts may lead there`,
    allow: entryFor(host, port),
  };
}
