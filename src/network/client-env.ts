// What the tools are told of the gate: the proxy's address, in every form the usual clients read. Setting it
// is a convenience, never the enforcement: a tool that ignores it has no route out anyway.

/** Names the tools reach on their own loopback, never through the proxy. */
const OWN_LOOPBACK = 'localhost,127.0.0.1,::1';

/**
 * The variables every call in a gated sandbox gets, over anything the workflow set (a proxy of the runner's
 * own is out of the tools' reach): curl, git, pip (requests), Go, Ruby, Deno and Bun read the standard
 * ones; npm, pip, cargo and yarn have their own, which also win over a project's configuration; Node's own
 * fetch (Node 24) takes the standard ones only when told to.
 */
export function proxyEnv(port: number): Record<string, string> {
  const url = `http://127.0.0.1:${port}`;
  return {
    HTTP_PROXY: url,
    http_proxy: url,
    HTTPS_PROXY: url,
    https_proxy: url,
    NO_PROXY: OWN_LOOPBACK,
    no_proxy: OWN_LOOPBACK,
    npm_config_proxy: url,
    npm_config_https_proxy: url,
    npm_config_noproxy: OWN_LOOPBACK,
    PIP_PROXY: url,
    CARGO_HTTP_PROXY: url,
    YARN_HTTP_PROXY: url,
    YARN_HTTPS_PROXY: url,
    NODE_USE_ENV_PROXY: '1',
  };
}
