// The transport to a local MCP server (src/mcp/stdio.ts) over the stdio of a real process started as the
// sandbox's Service starts one (here without a sandbox): lines framed however the pipe cuts them, noise on
// stdout noted but never fatal, a runaway line ended, and a server that goes closing the connection once.
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_MESSAGE_BYTES, ServiceTransport } from '../../src/mcp/stdio.js';
import { Service } from '../../src/sandbox/commands/run-command.js';

const started: Service[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((service) => service.stop(100)));
});

/** A transport to `node -e script`, started, with what it heard gathered. */
async function transportTo(script: string) {
  const service = Service.start([process.execPath, '-e', script], { cwd: process.cwd(), env: process.env });
  started.push(service);
  const transport = new ServiceTransport(service);
  const heard = { messages: [] as JSONRPCMessage[], errors: [] as string[], closed: 0 };
  transport.onmessage = (message) => heard.messages.push(message);
  transport.onerror = (error) => heard.errors.push(error.message);
  transport.onclose = () => heard.closed++;
  await transport.start();
  return { service, transport, heard };
}

const note = (n: number) =>
  JSON.stringify({ jsonrpc: '2.0', method: 'notifications/message', params: { n } });

describe('ServiceTransport', () => {
  it('frames messages cut across writes, several in one write, and lines ending in CRLF', async () => {
    const [one, two, three] = [note(1), note(2), note(3)];
    const script = `
      const parts = [${JSON.stringify(one.slice(0, 9))}, ${JSON.stringify(one.slice(9) + '\n' + two + '\r\n' + three.slice(0, 4))}, ${JSON.stringify(three.slice(4) + '\n')}];
      let i = 0;
      const next = () => { if (i < parts.length) process.stdout.write(parts[i++], () => setTimeout(next, 20)); };
      next();`;
    const { service, heard } = await transportTo(script);
    await service.exited;
    await expect.poll(() => heard.closed).toBe(1);
    expect(heard.messages).toEqual([one, two, three].map((line) => JSON.parse(line) as unknown));
    expect(heard.errors).toEqual([]);
  });

  it('notes lines that are not JSON-RPC, five at most, and still delivers the messages among them', async () => {
    const script = `
      for (let i = 0; i < 8; i++) console.log('log line ' + i);
      console.log('');
      console.log(${JSON.stringify(note(7))});`;
    const { service, heard } = await transportTo(script);
    await service.exited;
    await expect.poll(() => heard.closed).toBe(1);
    expect(heard.errors).toEqual(Array(5).fill('the server printed a line that is not JSON-RPC on stdout'));
    expect(heard.messages).toEqual([JSON.parse(note(7))]);
  });

  it('sends each message as one line the server reads, and refuses to send once it is closed', async () => {
    // An echo server: every line it reads comes back with its id.
    const script = `
      let buf = '';
      process.stdin.on('data', (d) => {
        buf += d;
        let at;
        while ((at = buf.indexOf('\\n')) !== -1) {
          const line = buf.slice(0, at); buf = buf.slice(at + 1);
          const m = JSON.parse(line);
          console.log(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: { echoed: m.method } }));
        }
      });`;
    const { transport, heard } = await transportTo(script);
    await transport.send({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    await transport.send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'x' } });
    await expect.poll(() => heard.messages.length).toBe(2);
    expect(heard.messages).toEqual([
      { jsonrpc: '2.0', id: 1, result: { echoed: 'tools/list' } },
      { jsonrpc: '2.0', id: 2, result: { echoed: 'tools/call' } },
    ]);
    await transport.close();
    expect(heard.closed).toBe(1);
    await expect(transport.send({ jsonrpc: '2.0', id: 3, method: 'ping' })).rejects.toThrow(
      'the server is not running',
    );
  });

  it('stops a server whose one line grows past the limit, rather than keeping it in memory', async () => {
    // 1 MiB at a time, no newline, until well past the limit (or until it is stopped).
    const script = `
      const chunk = 'x'.repeat(1024 * 1024);
      let sent = 0;
      const more = () => { if (sent++ < ${MAX_MESSAGE_BYTES / 1024 / 1024 + 8}) process.stdout.write(chunk, more); };
      more();`;
    const { service, heard } = await transportTo(script);
    await expect.poll(() => heard.closed, { timeout: 60_000 }).toBe(1);
    expect(heard.errors).toEqual([
      `the server sent a message over ${MAX_MESSAGE_BYTES / 1024 / 1024} MB: it is stopped`,
    ]);
    expect(heard.messages).toEqual([]);
    await service.exited;
    expect(service.running).toBe(false);
  }, 90_000);
});
