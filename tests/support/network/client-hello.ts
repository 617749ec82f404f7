// TLS ClientHellos for the gate's tests: the one Node's own TLS client sends, and ones built field by field
// (one name, two, none, extensions of any kind) in records of any size.
import { createServer } from 'node:net';
import { connect as connectTls } from 'node:tls';

/** The first bytes Node's TLS client sends for `servername` (none for ''). */
export async function realHello(servername: string): Promise<Buffer> {
  return await new Promise((resolve) => {
    const server = createServer((socket) =>
      socket.once('data', (bytes: Buffer) => {
        socket.destroy();
        server.close();
        resolve(bytes);
      }),
    ).listen(0, '127.0.0.1', () => {
      const port = (server.address() as { port: number }).port;
      connectTls({ port, host: '127.0.0.1', servername }).on('error', () => undefined);
    });
  });
}

export const u16 = (n: number) => Buffer.from([n >> 8, n & 0xff]);
export const u24 = (n: number) => Buffer.from([n >> 16, (n >> 8) & 0xff, n & 0xff]);
export const extension = (type: number, data: Buffer) => Buffer.concat([u16(type), u16(data.length), data]);
/** A server_name extension holding these host_names. */
export const sni = (...names: string[]) => {
  const list = Buffer.concat(
    names.map((name) => Buffer.concat([Buffer.from([0]), u16(name.length), Buffer.from(name)])),
  );
  return extension(0, Buffer.concat([u16(list.length), list]));
};

/** A ClientHello's handshake message (type, length, body) with these extensions. */
export function handshake(extensions: Buffer[]): Buffer {
  const block = Buffer.concat(extensions);
  const body = Buffer.concat([
    Buffer.from([3, 3]),
    Buffer.alloc(32, 7), // random
    Buffer.from([0]), // session id
    u16(2),
    Buffer.from([0x13, 0x01]), // one cipher suite
    Buffer.from([1, 0]), // null compression
    u16(block.length),
    block,
  ]);
  return Buffer.concat([Buffer.from([1]), u24(body.length), body]);
}

/** The handshake in TLS records of at most `size` bytes each. */
export function records(message: Buffer, size = 16_384): Buffer {
  const out: Buffer[] = [];
  for (let at = 0; at < message.length; at += size) {
    const part = message.subarray(at, at + size);
    out.push(Buffer.from([22, 3, 1]), u16(part.length), part);
  }
  return Buffer.concat(out);
}
