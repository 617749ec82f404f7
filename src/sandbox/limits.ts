// What one call, or one run, of the sandbox may take. Each limit fails what reaches it (a fork, a write),
// never the runner: the call's processes are counted in its own user namespace, and the temporary
// directories are tmpfs of their own. And the notes a call's output ends with when it met a limit, or the
// network's.

/** How the person running todo-agent names its network settings: the workflow's inputs, or the CLI's flags. */
export interface SettingNames {
  /** Where a host is allowed: `add x to ${allowedHosts}`. */
  allowedHosts: string;
  /** Why the network is off: `the network is off: ${networkNone}`. */
  networkNone: string;
}

export const WORKFLOW_SETTINGS: SettingNames = {
  allowedHosts: "the workflow's allowed_hosts input",
  networkNone: 'the workflow sets `tool_network: none`',
};

export const CLI_SETTINGS: SettingNames = {
  allowedHosts: '--allowed-hosts',
  networkNone: 'the CLI was started with `--tool-network none`',
};

/** A refused request as a note names it (namespaces.ts's NetworkRefusal). */
interface Refused {
  host: string;
  port: number;
  reason: string;
  allow?: string;
}

export const LIMITS = {
  /** Processes and threads of one call (RLIMIT_NPROC, counted per user namespace). */
  processes: 1024,
  /** Each of the run's /tmp and /var/tmp (tmpfs, in memory; the calls of a run share them). */
  temp: '1g',
  /** One call's /dev/shm (tmpfs). */
  shm: '256m',
  /** Connections from the tools open at once through a gated sandbox's bridge (and its proxy). */
  connections: 256,
  /** At the cap, a connection idle this long (not a forwarded port's) is closed for a new one. */
  idleSeconds: 300,
} as const;

/** Why a connection over the cap is refused. */
export function connectionCapReason(cap: number): string {
  return `the run's cap of ${cap} connections at once is reached`;
}

/** What a command's output says when it reached the process limit (bash, sh, Python, Node, libuv). */
const FORK_FAILED =
  /fork: (?:retry: )?Resource temporarily unavailable|[Cc]annot fork|can't fork|spawn EAGAIN/;

/**
 * The note the output of a sandboxed command ends with when it reached a limit, when the network gate refused
 * a request while it ran (a line for each host, with the input that would allow it), when its output shows it
 * met the network the workflow turned off (whatever its exit status), or when it `failed` going around the
 * gate; empty otherwise.
 */
export function limitNote(
  output: string,
  network: 'host' | 'none' | 'gated',
  failed: boolean,
  refused: readonly Refused[] = [],
  names: SettingNames = WORKFLOW_SETTINGS,
): string {
  const notes: string[] = [];
  if (FORK_FAILED.test(output))
    notes.push(
      `[todo-agent: the command reached the sandbox's limit of ${LIMITS.processes} processes per call; a fork failed]`,
    );
  notes.push(...refusalNotes(refused, names));
  if (failed && LOGIN_NEEDED.test(output)) notes.push(LOGIN_NOTE);
  // With the network off, whatever the exit status (`npm ci | tail` exits 0): no host was reached.
  if (network === 'none' && (NETWORK_FAILED.test(output) || OFFLINE_FAILED.test(output)))
    notes.push(networkOffNote(names));
  if (failed && refused.length === 0 && network === 'gated' && NETWORK_FAILED.test(output))
    notes.push(...aroundTheGateNotes(output, names));
  return notes.join('\n');
}

/** A refusal as every message names it: the host, why, and the allowed_hosts line that would allow it. */
export function refusalSentence(
  { host, port, reason, allow }: Refused,
  names: SettingNames = WORKFLOW_SETTINGS,
): string {
  const fix = allow ? `; to allow it, add ${allow} to ${names.allowedHosts}` : '';
  return `the network gate refused ${host}:${port}: ${reason}${fix}`;
}

/** At most this many refused hosts are named after one call; the rest are counted. */
const REFUSALS_NAMED = 5;

/** One line per refused host and port (the first reason given for it). */
function refusalNotes(refused: readonly Refused[], names: SettingNames): string[] {
  const first = new Map<string, Refused>();
  for (const refusal of refused) {
    const key = `${refusal.host}:${refusal.port}`;
    if (!first.has(key)) first.set(key, refusal);
  }
  const lines = [...first.values()]
    .slice(0, REFUSALS_NAMED)
    .map((refusal) => `[todo-agent: ${refusalSentence(refusal, names)}]`);
  const more = first.size - REFUSALS_NAMED;
  if (more > 0) lines.push(`[todo-agent: and ${more} more refused host${more === 1 ? '' : 's'}]`);
  return lines;
}

/** Name lookup and connection failures, as npm, pip, curl, git and others report them. */
const NETWORK_FAILED =
  /ENOTFOUND|EAI_AGAIN|EAI_NONAME|getaddrinfo|Could not resolve host|Temporary failure in name resolution|Name or service not known|No address associated with hostname|Network is unreachable|NewConnectionError|Failed to establish a new connection|ECONNREFUSED|Connection refused|nodename nor servname/i;

/**
 * A registry or index that wants a login, as npm, yarn (1 and 2+: `YN0041 … Invalid authentication`), pnpm,
 * pip, curl, Gradle, RubyGems and cargo (`got 401`, or `please run cargo login` in backquotes) say so.
 */
const LOGIN_NEEDED =
  /\bE401\b|code E401|401 Unauthorized|401 Client Error|Unable to authenticate|ERR_PNPM_FETCH_401|Response Code: 401|HTTP error 401|The requested URL returned error: 401|Received status code 401 from server|bad response Unauthorized 401|\bYN0041\b|Invalid authentication \(as|, got 401\b|please run `cargo login/i;

/** Why a registry that wants a login turns the tools away, and what works instead. */
export const LOGIN_NOTE =
  "[todo-agent: a registry asked for a login: the sandbox has the runner's registry settings but never their tokens, passwords or client keys, so the tools cannot log in; install from that registry before the run (an earlier workflow step), and the tools find the packages in place]";

/**
 * With the network off: pip's only line when it reached no index at all; npm's, Go's and cargo's, told to stay
 * offline.
 */
const OFFLINE_FAILED =
  /\(from versions: none\)|ENOTCACHED|GOPROXY=off|you're using offline mode|but --offline was specified/;

/** With the network off: why a lookup or connection failed. */
function networkOffNote(names: SettingNames = WORKFLOW_SETTINGS): string {
  return `[todo-agent: the network is off: ${names.networkNone}, so commands in the sandbox reach no host and name lookups fail]`;
}

export const NETWORK_OFF_NOTE = networkOffNote();

/** A command that went around the proxy: what the gated sandbox lets through, and how. */
export const AROUND_THE_GATE_NOTE =
  '[todo-agent: commands in the sandbox reach hosts only through its proxy (HTTPS_PROXY and HTTP_PROXY are set for them); name lookups and direct connections (raw sockets, git://, ssh) fail at once: use a client that takes the proxy, over HTTP or HTTPS]';

/** A port on the sandbox's own loopback, as Node, Python, curl, psql and bash's /dev/tcp name it when refused. */
const LOCAL_PORT = /(?:\b127\.0\.0\.1|\blocalhost|::1)[^\n\d]{0,12}?(?::|\/|\bport )(\d{1,5})\b(?!\))/;

/**
 * What a command that failed on the network is told: how to reach a service on the runner's loopback (its
 * own loopback is the sandbox's, where nothing listens), and how other hosts are reached if it failed on one.
 */
function aroundTheGateNotes(output: string, names: SettingNames): string[] {
  const port = LOCAL_PORT.exec(output)?.[1];
  if (!port) return [AROUND_THE_GATE_NOTE];
  const elsewhere = output.split('\n').some((line) => !LOCAL_PORT.test(line) && NETWORK_FAILED.test(line));
  return [
    `[todo-agent: nothing listens on port ${port} of the sandbox's own loopback: a service the job runs on the runner's localhost:${port} is reached once ${names.allowedHosts} names \`localhost:${port}\` (else the service is not running)]`,
    ...(elsewhere ? [AROUND_THE_GATE_NOTE] : []),
  ];
}

/**
 * With the network off, package managers are told so, where they would otherwise retry a failed lookup for
 * a minute or more (npm retries even ENOTFOUND): set for the tools unless the workflow set them itself. npm
 * works offline (from a warm cache, at the cache's speed; else it fails at once). pip tries once more, which
 * costs nothing with no name server and is what makes it print its connection error: without a retry, all
 * it says is "from versions: none".
 */
export const NETWORK_OFF_ENV: Readonly<Record<string, string>> = {
  npm_config_offline: 'true',
  npm_config_fetch_retries: '0',
  npm_config_fetch_timeout: '5000',
  PIP_RETRIES: '1',
  PIP_TIMEOUT: '5',
  UV_OFFLINE: '1',
  YARN_ENABLE_NETWORK: '0',
  CARGO_NET_OFFLINE: 'true',
  GOPROXY: 'off',
  MAVEN_ARGS: '--offline',
};
