// The network gate: the one way out for everything a model makes run under `tool_network: allowlist`. The
// tools' sandbox has a network namespace with loopback alone; its bridge (src/sandbox/bridge.ts) leads the
// proxy's port there to the proxy here (proxy/proxy.ts), which lets a request through only to a host the allowlist
// names (policy.ts) and an address that host may lead to.
//
// How the rest of the action uses it:
// - `NetworkGate.open` once per run, on a sandbox opened with `network: 'gated'`: it answers the bridge at once,
//   and the allowlist is complete once the toolchains answered (discover.ts), which only a request waits for.
// - Every process started through the sandbox (`runCommand`, `sandbox.call`: bash, verify_command, a local
//   MCP server) gets the proxy's address in its environment, and a call's output ends with a line for each
//   host refused while it ran.
// - `gate.fetch` for the action's own requests that must keep to the same list (a remote MCP server), and
//   `gate.allow` for a host the maintainer configured elsewhere (that server's).
// - `gate.watch` for each refusal as it happens (the agent turns them into events).
// Our own requests (the model's API, GitHub's) never go through it; the tools reach those hosts only when
// allowed_hosts names them.
import { connectionCapReason, LIMITS, type SettingNames } from '../sandbox/limits.js';
import type { BridgeEnds, NetworkRefusal, Sandbox, ToolNetwork } from '../sandbox/namespaces.js';
import { proxyEnv } from './client-env.js';
import { askToolchains, MAX_DISCOVERED, rulesFromEnv } from './discover.js';
import { GateRefusal, gatedFetch } from './fetch.js';
import { githubHosts } from './github-hosts.js';
import { addressKind } from './addresses.js';
import { isIP } from 'node:net';
import { ALLOWED_HOSTS, normalizeHost, uniqueRules, type HostRule } from './hosts.js';
import { addressRefusal, ruleFor, type Allowlist, type NameVerdict } from './policy.js';
import {
  ToolProxy,
  type ProxyLimits,
  type RefusedRequest,
  type Target,
  type Verdict,
} from './proxy/proxy.js';
import { toolsResolver, type Resolver } from './proxy/resolver.js';

export { GateRefusal };
/** The runner's toolchain settings: what the sandbox shows of them, and the mirrors they name. */
export { readRunnerSettings } from './runner/settings.js';

/** A run's caps: enough for any install or build, not for a runaway or a bulk copy of the runner's disk. */
export const GATE_LIMITS: ProxyLimits = { connections: LIMITS.connections, bytes: 8 * 2 ** 30 };

/** The latest refusals kept for the calls' notes (the watchers hear every one). */
const KEPT_REFUSALS = 10_000;

export interface GateOptions {
  /** A sandbox opened with `network: 'gated'` (its bridge open). */
  sandbox: Sandbox;
  /**
   * What the toolchains are asked with, once known: an environment without any secret of the job (the MCP
   * configuration's among them) and the project's settings files as the trusted snapshot has them
   * (src/git/snapshot.ts), never the work tree's.
   */
  toolchains: Promise<{ env: NodeJS.ProcessEnv; projectFiles: Readonly<Record<string, string>> }>;
  /** The maintainer's allowed_hosts. */
  allowedHosts: readonly HostRule[];
  /**
   * GITHUB_SERVER_URL and GITHUB_API_URL: GitHub's hosts join the list, its API is guarded. `packages`: the
   * package hosts GitHub's `GET /meta` gave (asked beside the run's first reads; none if it failed).
   */
  github: { serverUrl: string; apiUrl: string; packages?: Promise<readonly string[]> };
  /** More hosts reached only when allowed_hosts names them: the model's endpoint. */
  guarded?: ReadonlyArray<{ host: string; what: string }>;
  /** The tools' environment (without secrets): the registry variables it names join the list. */
  env: NodeJS.ProcessEnv;
  /**
   * The registries and mirrors the runner's own settings name (runner/settings.ts): they may lead to a
   * loopback or private address, and one on the runner's loopback with a port of its own is forwarded.
   */
  runner?: readonly HostRule[];
  resolver?: Resolver;
  limits?: ProxyLimits;
}

export class NetworkGate implements ToolNetwork {
  readonly env: Readonly<Record<string, string>>;
  /** The list in force: complete once the toolchains answered. */
  readonly allowlist: Promise<Allowlist>;
  /** The action's own requests that keep to the list (a remote MCP server). */
  readonly fetch: (input: string | URL, init?: RequestInit) => Promise<Response>;
  readonly #resolve: Resolver;
  readonly #refused: NetworkRefusal[] = [];
  readonly #listeners = new Set<(refusal: NetworkRefusal) => void>();
  /** Hosts added after the list was made (`allow`). */
  readonly #extra: HostRule[] = [];
  #proxy: ToolProxy | undefined;
  #stopProbes: AbortController | undefined;
  #limits: ProxyLimits = GATE_LIMITS;
  #forwards: Array<{ host: string; port: number }> = [];
  /** The list as known before any toolchain answers: allowed_hosts, GitHub's own hosts, the guarded. */
  #known: Allowlist = { rules: [], guarded: [] };

  readonly #names: SettingNames | undefined;

  private constructor(
    port: number,
    allowlist: Promise<Allowlist>,
    resolver: Resolver,
    names: SettingNames | undefined,
  ) {
    this.env = proxyEnv(port);
    this.allowlist = allowlist;
    this.#resolve = resolver;
    this.#names = names;
    this.fetch = gatedFetch((target) => this.#decideAndTell(target, 'fetch'), names);
  }

  /** Answers the sandbox's bridge, asks the toolchains (without waiting for them) and joins the sandbox. */
  static async open(options: GateOptions): Promise<NetworkGate> {
    const bridge = options.sandbox.bridge;
    if (!bridge) throw new Error('the network gate needs a sandbox opened with network: gated');
    // Closing the gate stops the toolchains' probes: their sandbox would otherwise outlive the run.
    const stop = new AbortController();
    const allowlist = buildAllowlist(options, stop.signal);
    allowlist.catch(() => undefined); // a request that needs it reports the failure
    const gate = new NetworkGate(
      bridge.port,
      allowlist,
      options.resolver ?? toolsResolver(),
      options.sandbox.config.names,
    );
    gate.#stopProbes = stop;
    gate.#forwards = forwardedPorts([...options.allowedHosts, ...(options.runner ?? [])]);
    // The runner's own mirrors are known from the start too: no answer of the toolchains changes them.
    gate.#known = knownList(options, [], options.runner ?? []);
    gate.#limits = options.limits ?? GATE_LIMITS;
    gate.#proxy = await gate.#answer(bridge).catch((error: unknown) => {
      stop.abort();
      throw error;
    });
    options.sandbox.attachNetwork(gate);
    return gate;
  }

  /** Answers an MCP server's own sandbox with the same list; its proxy closes with that sandbox. */
  async serve(sandbox: Sandbox): Promise<void> {
    const bridge = sandbox.bridge;
    if (!bridge) throw new Error('the network gate needs a sandbox opened with network: gated');
    const proxy = await this.#answer(bridge);
    sandbox.attachNetwork({
      // Its own bridge's port: each bridge listens on a port of its own.
      env: proxyEnv(bridge.port),
      refusedSince: (since) => this.refusedSince(since),
      watch: (listener) => this.watch(listener),
      close: () => proxy.close(),
    });
  }

  /** A proxy of the gate's on `bridge`, with its forwarded ports (those the bridge listens on). */
  #answer(bridge: BridgeEnds): Promise<ToolProxy> {
    const forwards = this.#forwards
      .filter(({ port }) => bridge.forwards.includes(port))
      .map(({ port, host }) => ({ path: bridge.forwardSocket(port), target: { host, port } }));
    // What the bridge refused at the cap never reached the proxy: the tools' port names it.
    bridge.onRefused((port, cap) => {
      const forward = forwards.find(({ target }) => target.port === port);
      this.#tell({
        ...(forward ? forward.target : { host: '127.0.0.1', port }),
        reason: connectionCapReason(cap),
        method: forward ? 'TCP' : 'CONNECT',
        at: Date.now(),
      });
    });
    return ToolProxy.open(
      bridge.proxySocket,
      {
        decide: (target) => this.#decide(target),
        onRefused: (refused) => this.#tell(refused),
        limits: this.#limits,
        ...(this.#names ? { names: this.#names } : {}),
      },
      forwards,
    );
  }

  /** Adds hosts to the list (a remote MCP server's, configured by the maintainer). */
  allow(rules: readonly HostRule[]): void {
    this.#extra.push(...rules);
  }

  refusedSince(since: number): readonly NetworkRefusal[] {
    return this.#refused.filter((refusal) => refusal.at >= since);
  }

  watch(listener: (refusal: NetworkRefusal) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  close(): void {
    this.#stopProbes?.abort();
    this.#proxy?.close();
    this.#listeners.clear();
  }

  /**
   * The rule for a name and port: at once where the toolchains' answers (and GitHub's package hosts) cannot
   * change it (the list known from the start allows it, or refuses it for a reason no answer lifts), else
   * once the list is complete.
   */
  async #rule(target: Target): Promise<NameVerdict> {
    const known = ruleFor(
      { ...this.#known, rules: [...this.#known.rules, ...this.#extra] },
      target.host,
      target.port,
    );
    if ('host' in known || answersCannotAllow(target.host, this.#known.guarded)) return known;
    const list = await this.allowlist;
    return ruleFor({ ...list, rules: [...list.rules, ...this.#extra] }, target.host, target.port);
  }

  /** Where a request may go: a rule of the list for its name and port, then each address it leads to. */
  async #decide(target: Target): Promise<Verdict> {
    const named = await this.#rule(target);
    if ('refused' in named) return named;
    let resolution;
    try {
      resolution = await this.#resolve(named.host);
    } catch (error) {
      return {
        failed: `${named.host} could not be looked up (${(error as NodeJS.ErrnoException).code ?? error})`,
      };
    }
    const routes = [];
    let refusal;
    for (const { address, family } of resolution.addresses) {
      const refused = addressRefusal(named.rule, named.host, target.port, address, resolution.trusted);
      if (refused) refusal ??= refused;
      else routes.push({ address, family, port: resolution.port ?? target.port });
    }
    if (routes.length > 0) return { routes };
    return { refused: refusal ?? { reason: `${named.host} has no address` } };
  }

  async #decideAndTell(target: Target, method: string): Promise<Verdict> {
    const verdict = await this.#decide(target);
    if ('refused' in verdict) this.#tell({ ...target, ...verdict.refused, method, at: Date.now() });
    return verdict;
  }

  #tell({ host, port, reason, allow, at }: RefusedRequest): void {
    const refusal: NetworkRefusal = { host, port, reason, ...(allow ? { allow } : {}), at };
    if (this.#refused.length >= KEPT_REFUSALS) this.#refused.shift();
    this.#refused.push(refusal);
    for (const listener of this.#listeners) listener(refusal);
  }
}

/** The list: allowed_hosts, GitHub's hosts, and the toolchains' registries once they (and GitHub) answered. */
async function buildAllowlist(options: GateOptions, stop: AbortSignal): Promise<Allowlist> {
  const [{ rules: probed, unanswered }, packages] = await Promise.all([
    askToolchains(options.sandbox, options.toolchains, stop),
    options.github.packages ?? [],
  ]);
  // The runner's own first: the same host and port from the toolchains' answers is the same mirror.
  const discovered = uniqueRules([...(options.runner ?? []), ...probed, ...rulesFromEnv(options.env)]).slice(
    0,
    MAX_DISCOVERED,
  );
  return { ...knownList(options, packages, discovered), ...(unanswered.length > 0 ? { unanswered } : {}) };
}

/** allowed_hosts, GitHub's hosts (with the package hosts given) and what the toolchains named, in that order. */
function knownList(
  options: GateOptions,
  packages: readonly string[],
  discovered: readonly HostRule[] = [],
): Allowlist {
  const github = githubHosts(options.github.serverUrl, options.github.apiUrl, packages);
  return {
    rules: uniqueRules([...options.allowedHosts, ...github.rules, ...discovered]),
    guarded: [...github.guarded, ...(options.guarded ?? [])],
  };
}

/**
 * Whether no rule the toolchains or GitHub could add would let `host` through: not a host name, a host only
 * allowed_hosts may allow (GitHub's API, the model's endpoint), or an address no rule but allowed_hosts' and
 * the runner's own mirrors (both known from the start) may lead to (loopback, private, link-local, reserved:
 * policy.ts's addressRefusal).
 */
function answersCannotAllow(requested: string, guarded: Allowlist['guarded']): boolean {
  const host = normalizeHost(requested.replace(/^\[|\]$/g, ''));
  if (!host || guarded.some((entry) => entry.host === host)) return true;
  return isIP(host) !== 0 && addressKind(host) !== 'public';
}

/**
 * The loopback services allowed_hosts names with a port (`localhost:5432`), and the runner's own mirrors
 * there (`http://127.0.0.1:3141/` in its pip.conf): the tools reach each at the same port on their own
 * loopback, through the gate.
 */
export function forwardedPorts(rules: readonly HostRule[]): Array<{ host: string; port: number }> {
  const loopback = (host: string) => host === 'localhost' || addressKind(host) === 'loopback';
  const ports = new Map<number, string>();
  for (const rule of rules)
    if (
      (rule.source === ALLOWED_HOSTS || rule.runner) &&
      rule.port !== undefined &&
      loopback(rule.host) &&
      !ports.has(rule.port)
    )
      ports.set(rule.port, rule.host);
  return [...ports].map(([port, host]) => ({ host, port }));
}
