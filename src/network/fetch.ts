// `fetch` for the action's own requests that must keep to the tools' allowlist (a remote MCP server the
// maintainer configured): the gate decides on the host and the address it leads to, as for a tool's request,
// and the connection goes to that address alone (no second lookup a rebinding answer could change).
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { Readable } from 'node:stream';
import type { Route, Target, Verdict } from './proxy/proxy.js';
import { refusalSentence, type SettingNames } from '../sandbox/limits.js';

/** A refusal of the gate's, as the error a gated fetch rejects with. */
export class GateRefusal extends Error {
  override name = 'GateRefusal';
}

/** A fetch whose every request is first decided by `decide`. */
export function gatedFetch(decide: (target: Target) => Promise<Verdict>, names?: SettingNames) {
  return async (input: string | URL, init: RequestInit = {}): Promise<Response> => {
    const url = new URL(String(input));
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      throw new TypeError(`the network gate fetches http: and https: only, not ${url.protocol}`);
    const target = {
      host: url.hostname.replace(/^\[|\]$/g, ''),
      port: Number(url.port || (url.protocol === 'https:' ? 443 : 80)),
    };
    const verdict = await decide(target);
    if ('refused' in verdict)
      throw new GateRefusal(refusalSentence({ ...target, ...verdict.refused }, names));
    if ('failed' in verdict) throw new GateRefusal(verdict.failed);
    const route = verdict.routes[0]!;
    const body = init.body == null ? undefined : Buffer.from(await new Response(init.body).arrayBuffer());
    // The URL's own host, whatever port the decision leads to (a test's map moves it).
    const headers = { ...Object.fromEntries(new Headers(init.headers).entries()), host: url.host };
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const answer = await new Promise<IncomingMessage>((resolve, reject) => {
      const req = send(url, {
        method: init.method ?? 'GET',
        headers,
        port: route.port,
        lookup: fixedLookup(route),
        ...(init.signal ? { signal: init.signal } : {}),
      });
      req.once('response', resolve);
      req.once('error', reject);
      req.end(body);
    });
    const responseHeaders = new Headers();
    for (let i = 0; i < answer.rawHeaders.length; i += 2)
      responseHeaders.append(answer.rawHeaders[i]!, answer.rawHeaders[i + 1]!);
    const status = answer.statusCode ?? 502;
    const empty = status === 204 || status === 304 || init.method === 'HEAD';
    if (empty) answer.resume();
    return new Response(empty ? null : (Readable.toWeb(answer) as ReadableStream<Uint8Array>), {
      status,
      statusText: answer.statusMessage ?? '',
      headers: responseHeaders,
    });
  };
}

/** A lookup that answers with the address the gate allowed, whatever the name (TLS still checks the name). */
function fixedLookup(route: Route): LookupFunction {
  return (_hostname, options, callback) => {
    if ((options as { all?: boolean }).all)
      callback(null, [{ address: route.address, family: route.family }]);
    else callback(null, route.address, route.family);
  };
}
