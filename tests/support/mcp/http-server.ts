// A remote MCP server for the tests, on loopback: streamable HTTP (the SDK's server side, stateless: a server
// and transport per request, as its examples serve one), answering only requests that carry the expected
// bearer token, and counting what it saw.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';

export interface RemoteMcpServer {
  /** The endpoint, e.g. http://127.0.0.1:PORT/mcp. */
  url: string;
  /** Requests that carried the token, and those that did not (answered 401). */
  authorized: number;
  refused: number;
  /** The `clientInfo` the last `initialize` gave. */
  client: { name: string; version: string } | undefined;
  close(): Promise<void>;
}

/** Serves one tool, `lookup`, which answers with the term it was given. */
export async function startRemoteMcpServer(token: string): Promise<RemoteMcpServer> {
  const seen: Pick<RemoteMcpServer, 'authorized' | 'refused' | 'client'> = {
    authorized: 0,
    refused: 0,
    client: undefined,
  };
  const server = http.createServer((req, res) => {
    if (req.headers.authorization !== `Bearer ${token}`) {
      seen.refused++;
      res.writeHead(401, { 'content-type': 'text/plain' }).end('unauthorized');
      return;
    }
    seen.authorized++;
    const mcp = new McpServer({ name: 'remote-docs', version: '1.0.0' });
    mcp.registerTool(
      'lookup',
      {
        description: 'Looks a term up in the internal docs.',
        inputSchema: { term: z.string() },
        annotations: { readOnlyHint: true },
      },
      async ({ term }) => ({ content: [{ type: 'text', text: `docs for ${term}: see page 7` }] }),
    );
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on('close', () => {
      // Stateless: only the server that answered `initialize` knows the client.
      seen.client = mcp.server.getClientVersion() ?? seen.client;
      void transport.close();
      void mcp.close();
    });
    void mcp.connect(transport).then(() => transport.handleRequest(req, res));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    get authorized() {
      return seen.authorized;
    },
    get refused() {
      return seen.refused;
    },
    get client() {
      return seen.client;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
