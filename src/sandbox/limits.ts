// What one call, or one run, of the sandbox may take. Each limit fails what reaches it (a fork, a write),
// never the runner: the call's processes are counted in its own user namespace, and the temporary
// directories are tmpfs of their own.

export const LIMITS = {
  /** Processes and threads of one call (RLIMIT_NPROC, counted per user namespace). */
  processes: 1024,
  /** Each of the run's /tmp and /var/tmp (tmpfs, in memory; the calls of a run share them). */
  temp: '1g',
  /** One call's /dev/shm (tmpfs). */
  shm: '256m',
} as const;

/** What a command's output says when it reached the process limit (bash, sh, Python, Node, libuv). */
const FORK_FAILED =
  /fork: (?:retry: )?Resource temporarily unavailable|[Cc]annot fork|can't fork|spawn EAGAIN/;

/**
 * The note the output of a sandboxed command ends with when it reached a limit, or when it `failed` on the
 * network the workflow turned off; empty otherwise.
 */
export function limitNote(output: string, network: 'host' | 'none', failed: boolean): string {
  const notes: string[] = [];
  if (FORK_FAILED.test(output))
    notes.push(
      `[todo-agent: the command reached the sandbox's limit of ${LIMITS.processes} processes per call; a fork failed]`,
    );
  if (failed && network === 'none' && NETWORK_FAILED.test(output)) notes.push(NETWORK_OFF_NOTE);
  return notes.join('\n');
}

/** Name lookup and connection failures, as npm, pip, curl, git and others report them. */
const NETWORK_FAILED =
  /ENOTFOUND|EAI_AGAIN|EAI_NONAME|getaddrinfo|Could not resolve host|Temporary failure in name resolution|Name or service not known|No address associated with hostname|Network is unreachable|NewConnectionError|Failed to establish a new connection|ECONNREFUSED|nodename nor servname/i;

export const NETWORK_OFF_NOTE =
  '[todo-agent: the network is off: the workflow sets `tool_network: none`, so commands in the sandbox reach no host and name lookups fail]';

/**
 * With the network off, package managers are told so, where they would otherwise retry a failed lookup for
 * a minute or more (npm retries even ENOTFOUND): set for the tools unless the workflow set them itself.
 */
export const NETWORK_OFF_ENV: Readonly<Record<string, string>> = {
  npm_config_fetch_retries: '0',
  npm_config_fetch_timeout: '5000',
  PIP_RETRIES: '0',
  PIP_TIMEOUT: '5',
  UV_OFFLINE: '1',
  YARN_ENABLE_NETWORK: '0',
  CARGO_NET_OFFLINE: 'true',
  GOPROXY: 'off',
};
