// What a CONNECT tunnel carries, read from the first bytes the tool sends through it, before any of them go
// further: a tunnel allowed for one host may carry that host alone. TLS names its server in the ClientHello
// (SNI, in the clear: the gate decrypts nothing); plain HTTP names it in each request's Host header, which
// the proxy reads as it reads any plain request (proxy.ts). On a shared front (a CDN), another name in
// either would reach another site. The bytes in, a verdict out; and the connections of a tunnel let through.
import { connect, isIP, type Socket } from 'node:net';
import { normalizeHost } from '../hosts.js';
import type { Refusal } from '../policy.js';
import type { Route, Target } from './requests.js';

/** The most a ClientHello may take, its records' headers included. Ours: a real one is 0.5–2 KB (a post-quantum key share included), a large ticket a few more. */
export const MAX_HELLO_BYTES = 64 * 1024;
/** The most records a ClientHello may be spread over. Ours: clients send one (two for a very large hello). */
const MAX_HELLO_RECORDS = 16;
/** The time from the tunnel's opening to its whole ClientHello or first request line. */
export const HELLO_TIMEOUT_MS = 30_000;

const HANDSHAKE = 22;
const CLIENT_HELLO = 1;
/** A TLS record's plaintext fragment: at most 2^14 bytes (RFC 8446, 5.1). */
const MAX_FRAGMENT = 2 ** 14;
const SERVER_NAME = 0x0000;
const ENCRYPTED_CLIENT_HELLO = 0xfe0d;

/** What a ClientHello says of its server. */
export interface Hello {
  /** The host_name of its server_name extension, as sent. */
  serverName?: string;
  /** Whether it carries Encrypted Client Hello, whose inner hello names the server where the gate cannot see. */
  encrypted: boolean;
}

/** The first bytes read so far: TLS, plain HTTP (or what Node's HTTP parser may judge), or more are needed. */
export type FirstBytes =
  { tls: Hello; length: number } | { http: true } | { more: number } | { problem: string };

/**
 * What the tunnel's first bytes are. `more` is the total byte count to wait for before asking again, so a
 * hello sent a byte at a time is read a few times, not once a byte.
 */
export function readFirstBytes(bytes: Buffer): FirstBytes {
  if (bytes.length === 0) return { more: 1 };
  if (bytes[0] !== HANDSHAKE) return { http: true };
  const fragments: Buffer[] = [];
  let at = 0;
  let have = 0;
  let needed: number | undefined;
  for (let records = 0; records < MAX_HELLO_RECORDS; records++) {
    if (bytes.length < at + 5) return { more: at + 5 };
    if (bytes[at] !== HANDSHAKE || bytes[at + 1] !== 3)
      return { problem: 'its TLS handshake is interrupted by a record of another kind' };
    const length = bytes.readUInt16BE(at + 3);
    if (length === 0 || length > MAX_FRAGMENT) return { problem: 'it sent a TLS record of no valid length' };
    if (bytes.length < at + 5 + length) return { more: at + 5 + length };
    fragments.push(bytes.subarray(at + 5, at + 5 + length));
    at += 5 + length;
    have += length;
    if (needed === undefined && have >= 4) {
      const head = Buffer.concat(fragments).subarray(0, 4);
      if (head[0] !== CLIENT_HELLO)
        return { problem: 'its first TLS handshake message is not a ClientHello' };
      needed = 4 + head.readUIntBE(1, 3);
      if (needed > MAX_HELLO_BYTES)
        return { problem: `its TLS ClientHello is larger than ${MAX_HELLO_BYTES / 1024} KiB` };
    }
    if (needed !== undefined && have >= needed) {
      // Nothing else of the handshake comes before the server answers: more would be read by the server only.
      if (have > needed) return { problem: 'it sent more TLS handshake data after its ClientHello' };
      const hello = parseClientHello(Buffer.concat(fragments).subarray(4));
      return 'problem' in hello ? hello : { tls: hello, length: at };
    }
  }
  return { problem: `its TLS ClientHello is spread over more than ${MAX_HELLO_RECORDS} records` };
}

/** A ClientHello's body (RFC 8446, 4.1.2; RFC 5246, 7.4.1.2): its server name and whether it is encrypted. */
export function parseClientHello(body: Buffer): Hello | { problem: string } {
  const broken = { problem: 'its TLS ClientHello is malformed' };
  let at = 2 + 32; // legacy_version, random
  const skip = (lengthBytes: 1 | 2, min: number, max: number): boolean => {
    if (at + lengthBytes > body.length) return false;
    const length = body.readUIntBE(at, lengthBytes);
    at += lengthBytes + length;
    return length >= min && length <= max && at <= body.length;
  };
  if (!skip(1, 0, 32) || !skip(2, 2, 0xfffe) || !skip(1, 1, 0xff)) return broken;
  const hello: Hello = { encrypted: false };
  if (at === body.length) return hello; // no extensions at all (TLS 1.2 and before allow it)
  if (at + 2 > body.length || at + 2 + body.readUInt16BE(at) !== body.length) return broken;
  at += 2;
  const seen = new Set<number>();
  while (at < body.length) {
    if (at + 4 > body.length) return broken;
    const type = body.readUInt16BE(at);
    const length = body.readUInt16BE(at + 2);
    const data = body.subarray(at + 4, at + 4 + length);
    at += 4 + length;
    if (at > body.length || seen.has(type)) return broken;
    seen.add(type);
    if (type === ENCRYPTED_CLIENT_HELLO) hello.encrypted = true;
    if (type === SERVER_NAME) {
      const name = hostName(data);
      if (name === undefined) return { problem: 'its TLS ClientHello has a malformed server name (SNI)' };
      hello.serverName = name;
    }
  }
  return hello;
}

/** The one host_name of a server_name extension (RFC 6066, 3), or undefined when there is not exactly one. */
function hostName(data: Buffer): string | undefined {
  if (data.length < 2 || data.readUInt16BE(0) !== data.length - 2) return undefined;
  let name: string | undefined;
  for (let at = 2; at < data.length;) {
    if (at + 3 > data.length) return undefined;
    const type = data[at]!;
    const length = data.readUInt16BE(at + 1);
    if (length === 0 || at + 3 + length > data.length) return undefined;
    if (type === 0) {
      if (name !== undefined) return undefined;
      name = data.toString('latin1', at + 3, at + 3 + length);
    }
    at += 3 + length;
  }
  return name;
}

/** A refusal of a name in a tunnel, naming the host asked for (or the tunnel's, when none was). */
export interface TunnelRefusal extends Refusal {
  host: string;
}

/** Why a tunnel may not carry `named` (the SNI or Host it carries), or undefined when it is the tunnel's host. */
export function otherName(tunnel: Target, named: string): TunnelRefusal | undefined {
  const host = normalizeHost(named);
  if (host !== undefined && host === normalizeHost(tunnel.host)) return undefined;
  const shown = host ?? JSON.stringify(named.slice(0, 80));
  return {
    host: host ?? tunnel.host,
    reason: `${shown} is not ${tunnel.host}, the host this tunnel was allowed for`,
  };
}

/** Why a tunnel may not carry this ClientHello, or undefined when it names the tunnel's host. */
export function helloRefusal(tunnel: Target, hello: Hello): TunnelRefusal | undefined {
  if (hello.encrypted)
    return {
      host: tunnel.host,
      reason:
        'its TLS ClientHello hides the server it is for (Encrypted Client Hello), which the gate cannot check',
    };
  if (hello.serverName !== undefined) return otherName(tunnel, hello.serverName);
  if (isIP(tunnel.host) !== 0) return undefined; // an address has no name to send
  return {
    host: tunnel.host,
    reason: `its TLS ClientHello names no server (SNI); a tunnel to ${tunnel.host} must name it`,
  };
}

/** A TLS alert that ends the handshake: fatal `unrecognized_name` (RFC 6066, 3), the one about the name. */
export const UNRECOGNIZED_NAME_ALERT = Buffer.from([21, 3, 3, 0, 2, 2, 112]);

/** Pipes both ways; either side closing or failing ends the other. */
export function splice(one: Socket, other: Socket): void {
  one.pipe(other);
  other.pipe(one);
  const end = (): void => {
    one.destroy();
    other.destroy();
  };
  for (const socket of [one, other]) {
    socket.once('error', end);
    socket.once('close', end);
  }
}

/** How long an upstream host may take to accept a connection. */
const CONNECT_TIMEOUT_MS = 30_000;

/** Connects to the first route that answers. */
export async function reach(routes: readonly Route[]): Promise<Socket> {
  let last: unknown = new Error('no address');
  for (const route of routes) {
    try {
      return await new Promise<Socket>((resolve, reject) => {
        const socket = connect({
          host: route.address,
          port: route.port,
          family: route.family,
          allowHalfOpen: true,
        });
        socket.setNoDelay(true);
        socket.setTimeout(CONNECT_TIMEOUT_MS, () =>
          socket.destroy(Object.assign(new Error('timed out'), { code: 'ETIMEDOUT' })),
        );
        socket.once('connect', () => {
          socket.setTimeout(0);
          socket.removeListener('error', reject);
          resolve(socket);
        });
        socket.once('error', reject);
      });
    } catch (error) {
      last = error;
    }
  }
  throw last;
}
