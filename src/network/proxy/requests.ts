// What a request to the tools' proxy asks for, and how the proxy frames it again before passing it on: the
// target of a `CONNECT` or of a plain HTTP request, the headers that go further, and the framing checks that
// keep a request from carrying a second one the gate never judged (request smuggling), and what a refusal
// answers. Pure.
import { WORKFLOW_SETTINGS, type SettingNames } from '../../sandbox/limits.js';
import type { IncomingMessage } from 'node:http';
import type { Refusal } from '../policy.js';

export interface Target {
  host: string;
  port: number;
}

/** An address a request may go to, and its port. */
export interface Route {
  address: string;
  family: 4 | 6;
  port: number;
}

/** Headers that belong to one hop (RFC 9110, 7.6.1), and the proxy's own: never passed on. */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authorization',
  'proxy-authenticate',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

/** What a host may hold before it is decided on (and named in a refusal): a name's or an address's characters. */
const HOST_CHARACTERS = /^[\w.-]{1,253}$|^[0-9a-f:.]{2,45}$/i;

/** `host:port` (`[v6]:port`) of a CONNECT request; undefined without a port or with no host in it. */
export function parseAuthority(authority: string): Target | undefined {
  const match = /^(\[[^\]]+\]|[^:[\]]+):(\d{1,5})$/.exec(authority.trim());
  if (!match) return undefined;
  const host = match[1]!.replace(/^\[|\]$/g, '');
  const port = Number(match[2]);
  return port >= 1 && port <= 65_535 && HOST_CHARACTERS.test(host) ? { host, port } : undefined;
}

/** The host, port and path a plain HTTP request asks for: its absolute URI, else its Host header. */
export function requestTarget(
  req: Pick<IncomingMessage, 'url' | 'headers'>,
): (Target & { path: string; authority: string }) | { problem: string } {
  const raw = req.url ?? '';
  let url: URL;
  try {
    url = /^[a-z][a-z0-9+.-]*:/i.test(raw) ? new URL(raw) : new URL(raw, `http://${req.headers.host ?? ''}`);
  } catch {
    return {
      problem: 'the sandbox proxy needs the host: an absolute URI (http://host/path) or a Host header',
    };
  }
  if (url.protocol === 'https:') return { problem: 'https goes through CONNECT, not as a plain request' };
  if (url.protocol !== 'http:')
    return { problem: `the sandbox proxy passes http: and CONNECT on, not ${url.protocol}` };
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (!HOST_CHARACTERS.test(host)) return { problem: 'the request names no host' };
  return {
    host,
    port: Number(url.port || 80),
    path: `${url.pathname}${url.search}`,
    authority: url.host,
  };
}

/** The headers to pass on: without hop-by-hop ones (nor those `Connection` names), Host set to `authority`. */
export function passedHeaders(raw: readonly string[], authority?: string): string[] {
  const named = new Set<string>();
  for (let i = 0; i < raw.length; i += 2)
    if (raw[i]!.toLowerCase() === 'connection')
      for (const name of raw[i + 1]!.split(',')) named.add(name.trim().toLowerCase());
  const kept: string[] = authority === undefined ? [] : ['Host', authority];
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!.toLowerCase();
    if (HOP_BY_HOP.has(name) || named.has(name) || (authority !== undefined && name === 'host')) continue;
    kept.push(raw[i]!, raw[i + 1]!);
  }
  return kept;
}

/** How a request's body is framed: none, a length, or chunks (which the proxy frames again itself). */
export type Framing = { body: 'none' } | { body: 'length'; length: number } | { body: 'chunked' };

const TOKEN = /^[!#$%&'*+.^_`|~\w-]+$/;
/** What no header value may hold: CR, LF (a bare one, or an obs-fold's) and NUL, or any other control but tab. */
// eslint-disable-next-line no-control-regex -- the control characters are what this matches
const UNSAFE_VALUE = /[\0-\x08\n-\x1f\x7f]/;

/**
 * The framing of a request as its headers declare it, or why the proxy refuses it (400): anything two
 * servers could read as different requests. Node's parser turns most of these away before a request is
 * seen at all (Transfer-Encoding with Content-Length, obs-fold, a bare CR or LF, two lengths); these checks
 * hold whatever parser gave the headers, and add what it lets through: a transfer coding but `chunked`
 * alone, and a second Host.
 */
export function requestFraming(raw: readonly string[]): Framing | { problem: string } {
  const values = (wanted: string) =>
    raw.filter((_, i) => i % 2 === 1 && raw[i - 1]!.toLowerCase() === wanted);
  for (let i = 0; i < raw.length; i += 2) {
    if (!TOKEN.test(raw[i]!)) return { problem: 'a header name is not a token' };
    if (UNSAFE_VALUE.test(raw[i + 1]!))
      return { problem: `the ${raw[i]} header holds a line break or a control character` };
  }
  const codings = values('transfer-encoding');
  const lengths = values('content-length');
  if (values('host').length > 1) return { problem: 'the request has more than one Host header' };
  if (codings.length > 0 && lengths.length > 0)
    return { problem: 'the request has both Transfer-Encoding and Content-Length' };
  if (codings.length > 0) {
    if (codings.length > 1 || codings[0]!.trim().toLowerCase() !== 'chunked')
      return { problem: 'the sandbox proxy passes on Transfer-Encoding: chunked alone' };
    return { body: 'chunked' };
  }
  if (lengths.length > 1) return { problem: 'the request has more than one Content-Length' };
  if (lengths.length === 0) return { body: 'none' };
  const text = lengths[0]!.trim();
  if (!/^\d{1,15}$/.test(text)) return { problem: 'its Content-Length is not a number' };
  return { body: 'length', length: Number(text) };
}

/** The answer's text: what was refused, why, and what would allow it. */
export function refusalText(
  target: Target,
  refusal: Refusal,
  names: SettingNames = WORKFLOW_SETTINGS,
): string {
  const allow = refusal.allow ? ` To allow it, add ${refusal.allow} to ${names.allowedHosts}.` : '';
  return `todo-agent refused ${target.host}:${target.port}: ${refusal.reason}.${allow}`;
}

/** A byte count in the largest binary unit it fills. */
export function inUnits(bytes: number): string {
  const [unit, size] = (
    [
      ['GiB', 2 ** 30],
      ['MiB', 2 ** 20],
      ['KiB', 2 ** 10],
    ] as const
  ).find(([, size]) => bytes >= size) ?? ['bytes', 1];
  return `${Math.round((bytes / size) * 10) / 10} ${unit}`;
}
