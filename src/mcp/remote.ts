// Remote MCP servers, reached by the action itself: streamable HTTP, or the older HTTP with SSE where a server
// still speaks only that. Every request goes through one fetch (`remoteFetch`): it keeps to the server's own
// origin (an SSE endpoint or a redirect cannot send the headers elsewhere), and sends through the network
// gate's fetch when the run has a gate, which decides by the allowlist (the server's host joins it by being
// configured). A redirect is never followed blindly: the SDK follows one only within the origin, through the
// same fetch.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { FetchLike, Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { RemoteServerConfig } from '../settings/mcp-servers.js';

/** Why the action may not reach `url`, or undefined when it may. */
export type EgressRule = (url: URL) => string | undefined;

/** A remote server is reached at its own origin only: scheme, host and port as configured. */
export function serverOriginOnly(server: RemoteServerConfig): EgressRule {
  const origin = new URL(server.url).origin;
  return (url) =>
    url.origin === origin ? undefined : `${url.origin} is not the origin of the MCP server (${origin})`;
}

/**
 * The one fetch every request to a remote server goes through: checked by `rule`, redirects left unfollowed,
 * sent by `send` (the network gate's fetch, which decides on the host and the address it leads to; Node's own
 * where the run has no gate).
 */
export function remoteFetch(rule: EgressRule, send: FetchLike = fetch): FetchLike {
  return async (input, init) => {
    const url = new URL(input);
    const refused = rule(url);
    if (refused) throw new Error(`refused: ${refused}`);
    return await send(url, { ...init, redirect: 'manual' });
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
  timeoutMs: number,
  send?: FetchLike,
): Promise<Client> {
  const url = new URL(server.url);
  const fetch = remoteFetch(serverOriginOnly(server), send);
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
