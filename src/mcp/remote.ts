// Remote MCP servers, reached by the action itself: streamable HTTP, or the older HTTP with SSE where a server
// still speaks only that. Every request goes through one fetch (`remoteFetch`), which asks the egress rule
// whether the action may reach that URL; the network gate's allowlist is that rule, with each configured
// server's host on it. A redirect is never followed blindly: the SDK follows one only within the server's
// origin, through the same fetch, and so through the same rule.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { FetchLike, Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { RemoteServerConfig } from '../settings/mcp-servers.js';

/** Why the action may not reach `url`, or undefined when it may. */
export type EgressRule = (url: URL) => string | undefined;

/**
 * The rule when no network gate gives one: a remote server is reached at its own origin only (scheme, host
 * and port as configured), so that a redirect or an SSE endpoint cannot send the headers elsewhere.
 */
export function serverOriginOnly(server: RemoteServerConfig): EgressRule {
  const origin = new URL(server.url).origin;
  return (url) =>
    url.origin === origin ? undefined : `${url.origin} is not the origin of the MCP server (${origin})`;
}

/** The one fetch every request to a remote server goes through: checked by `rule`, redirects left unfollowed. */
export function remoteFetch(rule: EgressRule): FetchLike {
  return async (input, init) => {
    const url = new URL(input);
    const refused = rule(url);
    if (refused) throw new Error(`refused: ${refused}`);
    return await fetch(url, { ...init, redirect: 'manual' });
  };
}

/**
 * A client connected to the server (each attempt with a client of its own, made by `makeClient`): streamable
 * HTTP first, unless the configuration says `sse`, then SSE if the server refuses it as a server of the older
 * protocol does.
 */
export async function connectRemote(
  makeClient: () => Client,
  server: RemoteServerConfig,
  rule: EgressRule,
  timeoutMs: number,
): Promise<Client> {
  const url = new URL(server.url);
  const fetch = remoteFetch(rule);
  const requestInit = { headers: server.headers };
  const attempt = async (transport: Transport): Promise<Client> => {
    const client = makeClient();
    try {
      await client.connect(transport, { timeout: timeoutMs });
      return client;
    } catch (error) {
      await client.close().catch(() => undefined);
      throw error;
    }
  };
  const sse = (): Promise<Client> => attempt(new SSEClientTransport(url, { fetch, requestInit }));
  if (server.type === 'sse') return await sse();
  try {
    return await attempt(new StreamableHTTPClientTransport(url, { fetch, requestInit }));
  } catch (error) {
    if (!olderProtocol(error)) throw error;
  }
  return await sse();
}

/** A server of the HTTP+SSE protocol answers the streamable POST with 404 or 405 (or 400: no session). */
function olderProtocol(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return typeof code === 'number' && [400, 404, 405].includes(code);
}
