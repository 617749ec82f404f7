// The gated fetch against a server on 127.0.0.1 that a test name leads to: the decision's address is the one
// connected to, whatever the name would resolve to.
import { createServer } from 'node:http';
import { afterAll, describe, expect, it } from 'vitest';
import { gatedFetch, GateRefusal } from '../../src/network/fetch.js';
import type { Target, Verdict } from '../../src/network/proxy/proxy.js';

const seen: Array<{ method?: string; url?: string; host?: string; body: string }> = [];
const server = createServer((req, res) => {
  let body = '';
  req.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
  req.on('end', () => {
    seen.push({ method: req.method, url: req.url, host: req.headers.host, body });
    if (req.url === '/empty') return void res.writeHead(204).end();
    res.writeHead(200, { 'Content-Type': 'application/json', 'X-Many': ['a', 'b'] }).end('{"ok":true}');
  });
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const port = (server.address() as { port: number }).port;
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const asked: Target[] = [];
const fetch = gatedFetch(async (target): Promise<Verdict> => {
  asked.push(target);
  if (target.host === 'mcp.test') return { routes: [{ address: '127.0.0.1', family: 4, port }] };
  return { refused: { reason: `${target.host} is not in the allowlist`, allow: target.host } };
});

describe('gatedFetch', () => {
  it('sends an allowed request to the address the decision gave, with its method, headers and body', async () => {
    const response = await fetch('http://mcp.test/rpc?x=1', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: 'Bearer t' },
      body: JSON.stringify({ jsonrpc: '2.0' }),
    });
    expect([response.status, await response.json(), response.headers.get('x-many')]).toEqual([
      200,
      { ok: true },
      'a, b',
    ]);
    expect(seen.at(-1)).toEqual({
      method: 'POST',
      url: '/rpc?x=1',
      host: 'mcp.test',
      body: '{"jsonrpc":"2.0"}',
    });
    expect(asked.at(-1)).toEqual({ host: 'mcp.test', port: 80 });
  });

  it('gives an empty answer no body', async () => {
    const response = await fetch('http://mcp.test/empty');
    expect([response.status, response.body]).toEqual([204, null]);
  });

  it('rejects a refused host with the gate’s reason, before any connection', async () => {
    const before = seen.length;
    await expect(fetch('https://elsewhere.test/')).rejects.toThrow(
      new GateRefusal(
        "the network gate refused elsewhere.test:443: elsewhere.test is not in the allowlist; to allow it, add elsewhere.test to the workflow's allowed_hosts input",
      ),
    );
    expect(seen.length).toBe(before);
  });
});
