// An MCP server that starts only when told, for the tests: `node late-server.mjs`. It waits until its working
// directory (the workspace) holds `mcp-go`, then serves one tool, `ping`; once it has sent its tool list it
// writes `mcp-up` there. A run that held its first model request for it would never get that far.
import { existsSync, writeFileSync } from 'node:fs';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';

while (!existsSync('mcp-go')) await new Promise((resolve) => setTimeout(resolve, 50));
const server = new McpServer({ name: 'late', version: '1.0.0' });
server.registerTool('ping', { description: 'Answers pong.', inputSchema: {} }, async () => ({
  content: [{ type: 'text', text: 'pong' }],
}));
const transport = new StdioServerTransport();
const send = transport.send.bind(transport);
transport.send = async (message, options) => {
  await send(message, options);
  if (message.result && Array.isArray(message.result.tools)) writeFileSync('mcp-up', 'listed\n');
};
await server.connect(transport);
