// A tunnel's first bytes: a real ClientHello (Node's own TLS client's), hellos built field by field (spread
// over records, with one name, two, none, an encrypted one, or broken lengths), and what each means for a
// tunnel opened for one host.
import { describe, expect, it } from 'vitest';
import {
  helloRefusal,
  MAX_HELLO_BYTES,
  otherName,
  parseClientHello,
  readFirstBytes,
} from '../../../src/network/proxy/tunnel.js';
import {
  extension,
  handshake,
  realHello,
  records,
  sni,
  u16,
  u24,
} from '../../support/network/client-hello.js';

describe('readFirstBytes', () => {
  it('reads the server name of a real ClientHello, and asks for more until it is whole', async () => {
    const hello = await realHello('registry.example.test');
    expect(readFirstBytes(hello)).toEqual({
      tls: { serverName: 'registry.example.test', encrypted: false },
      length: hello.length,
    });
    // Cut anywhere, it asks for the bytes up to the end of the record it is in (no more, no less).
    expect(readFirstBytes(hello.subarray(0, 3))).toEqual({ more: 5 });
    expect(readFirstBytes(hello.subarray(0, 100))).toEqual({ more: hello.length });
    expect(readFirstBytes(Buffer.alloc(0))).toEqual({ more: 1 });
    expect(readFirstBytes(await realHello(''))).toMatchObject({ tls: { encrypted: false } });
    expect((readFirstBytes(await realHello('')) as { tls: object }).tls).not.toHaveProperty('serverName');
  });

  it('reads a hello spread over many records, each asked for in turn', () => {
    const bytes = records(handshake([sni('a.test')]), 7);
    expect(readFirstBytes(bytes)).toMatchObject({ tls: { serverName: 'a.test' }, length: bytes.length });
    expect(readFirstBytes(bytes.subarray(0, 14))).toEqual({ more: 17 });
    expect(readFirstBytes(bytes.subarray(0, 17))).toEqual({ more: 24 });
  });

  it('takes anything that is not a TLS handshake as HTTP, for the HTTP parser to judge', () => {
    expect(readFirstBytes(Buffer.from('GET / HTTP/1.1\r\n'))).toEqual({ http: true });
    expect(readFirstBytes(Buffer.from('\r\nGET /'))).toEqual({ http: true });
  });

  it.each([
    [
      'another record in the handshake',
      Buffer.concat([
        records(handshake([sni('a.test')]), 30).subarray(0, 35),
        Buffer.from([23, 3, 3, 0, 1, 0]),
      ]),
      'interrupted',
    ],
    ['a record of no length', Buffer.from([22, 3, 1, 0, 0]), 'no valid length'],
    ['another first message', records(Buffer.from([2, 0, 0, 1, 0])), 'not a ClientHello'],
    [
      'a hello past the bound',
      records(Buffer.concat([Buffer.from([1]), u24(MAX_HELLO_BYTES)])),
      'larger than 64 KiB',
    ],
    [
      'data after the hello',
      records(Buffer.concat([handshake([sni('a.test')]), Buffer.from([20])])),
      'more TLS handshake data',
    ],
    ['too many records', records(handshake([sni('a.test')]), 3), 'more than 16 records'],
    ['two names', records(handshake([sni('a.test', 'b.test')])), 'malformed server name'],
    ['an empty name', records(handshake([sni('')])), 'malformed server name'],
    ['two server_name extensions', records(handshake([sni('a.test'), sni('b.test')])), 'malformed'],
    [
      'an extension longer than the hello',
      records(handshake([Buffer.concat([u16(5), u16(10), Buffer.alloc(4)])])),
      'malformed',
    ],
  ])('refuses %s', (_case, bytes, problem) => {
    const read = readFirstBytes(bytes);
    expect(read).toHaveProperty('problem');
    expect((read as { problem: string }).problem).toContain(problem);
  });

  it('notes an Encrypted Client Hello, whose real server name it cannot read', () => {
    const hello = handshake([sni('public.test'), extension(0xfe0d, Buffer.alloc(20, 1))]);
    expect(parseClientHello(hello.subarray(4))).toEqual({ serverName: 'public.test', encrypted: true });
  });
});

describe('what a tunnel may carry', () => {
  const tunnel = { host: 'registry.example.test', port: 443 };

  it('its own host, compared as the allowlist compares names (case, a trailing dot)', () => {
    for (const name of ['registry.example.test', 'REGISTRY.Example.test', 'registry.example.test.'])
      expect(helloRefusal(tunnel, { serverName: name, encrypted: false })).toBeUndefined();
    expect(otherName(tunnel, 'Registry.example.TEST.')).toBeUndefined();
  });

  it('no other name, which it reports as the host refused', () => {
    expect(helloRefusal(tunnel, { serverName: 'Other.test', encrypted: false })).toEqual({
      host: 'other.test',
      reason: 'other.test is not registry.example.test, the host this tunnel was allowed for',
    });
    expect(otherName(tunnel, 'bad name\u0000')).toEqual({
      host: 'registry.example.test',
      reason: '"bad name\\u0000" is not registry.example.test, the host this tunnel was allowed for',
    });
  });

  it('no hello without a name, unless the tunnel is to an address; no encrypted one', () => {
    expect(helloRefusal(tunnel, { encrypted: false })?.reason).toBe(
      'its TLS ClientHello names no server (SNI); a tunnel to registry.example.test must name it',
    );
    expect(helloRefusal({ host: '203.0.113.7', port: 443 }, { encrypted: false })).toBeUndefined();
    expect(helloRefusal({ host: '2001:db8::7', port: 443 }, { encrypted: false })).toBeUndefined();
    expect(helloRefusal(tunnel, { serverName: tunnel.host, encrypted: true })?.reason).toContain(
      'Encrypted Client Hello',
    );
  });
});
