// The one fetch a remote MCP server's requests go through: its own origin only, redirects never followed by
// fetch itself, and sent by the function it is given (the network gate's, where the run has one).
import { describe, expect, it } from 'vitest';
import { remoteFetch, serverOriginOnly } from '../../src/mcp/remote.js';

const server = {
  name: 'docs',
  type: 'http' as const,
  url: 'https://docs.example.test:8443/mcp',
  headers: {},
  tools: ['*'],
};

describe('remoteFetch', () => {
  it("refuses any origin but the server's, and hands the rest to the sender with redirects left to the caller", async () => {
    const sent: Array<{ url: string; redirect: RequestInit['redirect'] }> = [];
    const send = async (url: string | URL, init?: RequestInit) => {
      sent.push({ url: String(url), redirect: init?.redirect });
      return new Response('ok');
    };
    const fetch = remoteFetch(serverOriginOnly(server), send);
    expect(await (await fetch('https://docs.example.test:8443/mcp?x=1', { redirect: 'follow' })).text()).toBe(
      'ok',
    );
    await expect(fetch('https://docs.example.test/mcp')).rejects.toThrow(
      'refused: https://docs.example.test is not the origin of the MCP server (https://docs.example.test:8443)',
    );
    await expect(fetch('http://169.254.169.254/latest/meta-data')).rejects.toThrow(/refused/);
    expect(sent).toEqual([{ url: 'https://docs.example.test:8443/mcp?x=1', redirect: 'manual' }]);
  });
});
