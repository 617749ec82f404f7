// Name lookups for the tools' proxy, on the action's side of the sandbox: the system's resolver (so the
// runner's /etc/hosts and its DNS answer, as for any program there), each answer kept for a short while so
// that a run's hundreds of requests to one registry cost one lookup.
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';

export interface Resolution {
  /** IPv4 first: a runner without IPv6 must not try an address it cannot reach first. */
  addresses: ReadonlyArray<{ address: string; family: 4 | 6 }>;
  /** Where the connection goes instead of the port asked for (a test's map alone sets it). */
  port?: number;
  /** Set by a test's map for a server on loopback it stands in for a public one with. */
  trusted?: boolean;
}

export type Resolver = (host: string) => Promise<Resolution>;

/** How long an answer is kept: short, so a registry moving its addresses is followed within a run. */
const KEEP_MS = 30_000;

/** The system's resolver, answers kept for a while (a failed lookup is not kept). */
export function systemResolver(): Resolver {
  const kept = new Map<string, { until: number; answer: Promise<Resolution> }>();
  return (host) => {
    const literal = isIP(host);
    if (literal) return Promise.resolve({ addresses: [{ address: host, family: literal as 4 | 6 }] });
    const now = Date.now();
    const hit = kept.get(host);
    if (hit && hit.until > now) return hit.answer;
    const answer = lookup(host, { all: true }).then((found) => ({
      addresses: [...found]
        .filter((entry) => entry.family === 4 || entry.family === 6)
        .sort((a, b) => a.family - b.family)
        .map(({ address, family }) => ({ address, family: family as 4 | 6 })),
    }));
    kept.set(host, { until: now + KEEP_MS, answer });
    answer.catch(() => kept.delete(host));
    return answer;
  };
}

/**
 * Where a test lends the proxy a map of names to local servers (`name → 127.0.0.1:PORT`, `trusted` for a
 * server that stands in for a public one). Only code already running in this process can set it (a test's
 * preload, tests/support/network/); no input, variable or file of the workspace can.
 */
export const TEST_RESOLVER = Symbol.for('todo-agent.test-resolver');

export interface TestResolverEntry {
  address: string;
  port?: number;
  trusted?: boolean;
}

/** The system's resolver with a test's map in front of it, when a test lent one; else the system's alone. */
export function toolsResolver(): Resolver {
  const system = systemResolver();
  const map = (globalThis as Record<symbol, unknown>)[TEST_RESOLVER] as
    Readonly<Record<string, TestResolverEntry>> | undefined;
  if (!map) return system;
  return async (host) => {
    const entry = Object.hasOwn(map, host) ? map[host] : undefined;
    if (!entry) return await system(host);
    const family = isIP(entry.address) === 6 ? 6 : 4;
    return {
      addresses: [{ address: entry.address, family }],
      ...(entry.port ? { port: entry.port } : {}),
      ...(entry.trusted ? { trusted: true } : {}),
    };
  };
}
