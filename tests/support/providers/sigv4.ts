// An AWS Signature Version 4 check, written from AWS's description of the algorithm (canonical request,
// string to sign, derived signing key) with node:crypto only, so that it shares no code with the signer in
// the Bedrock SDK: a request passes only if a second, independent reading of the rules gives the same
// signature from the same credentials.
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

export interface AwsTestCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
  region: string;
  service: string;
}

export interface SignedRequest {
  method: string;
  /** Path and query as received, e.g. `/model/x/invoke-with-response-stream`. */
  url: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

const sha256Hex = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');
const hmac = (key: string | Buffer, data: string) => createHmac('sha256', key).update(data).digest();

/** RFC 3986 encoding, as SigV4 wants it (encodeURIComponent leaves !'()* alone). */
const uriEncode = (value: string) =>
  encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/** For every service but S3 the path is encoded once more, segment by segment. */
function canonicalPath(path: string): string {
  return path
    .split('/')
    .map((segment) => uriEncode(segment))
    .join('/');
}

function canonicalQuery(query: string): string {
  if (!query) return '';
  return query
    .split('&')
    .map((pair) => pair.split('=').map((part) => uriEncode(decodeURIComponent(part ?? ''))))
    .map(([key = '', value = '']) => `${key}=${value}`)
    .sort()
    .join('&');
}

const headerValue = (headers: IncomingHttpHeaders, name: string): string => {
  const value = headers[name];
  return (Array.isArray(value) ? value.join(',') : (value ?? '')).trim().replace(/\s+/g, ' ');
};

/** Why `request` is not correctly signed for `credentials`; undefined when it is. */
export function sigV4Problem(request: SignedRequest, credentials: AwsTestCredentials): string | undefined {
  const authorization = headerValue(request.headers, 'authorization');
  const match =
    /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, ?SignedHeaders=([a-z0-9;-]+), ?Signature=([0-9a-f]{64})$/.exec(
      authorization,
    );
  if (!match) return `Authorization header is not a SigV4 signature: '${authorization}'`;
  const [, accessKeyId, day, region, service, signedHeaderList, signature] = match as unknown as string[];
  if (accessKeyId !== credentials.accessKeyId) return `unknown access key ${accessKeyId}`;
  if (region !== credentials.region) return `signed for region ${region}, not ${credentials.region}`;
  if (service !== credentials.service) return `signed for service ${service}, not ${credentials.service}`;
  const amzDate = headerValue(request.headers, 'x-amz-date');
  if (!/^\d{8}T\d{6}Z$/.test(amzDate) || !amzDate.startsWith(day!))
    return `x-amz-date '${amzDate}' does not match the credential scope day ${day}`;
  const signedHeaders = signedHeaderList!.split(';');
  for (const required of ['host', 'x-amz-date'])
    if (!signedHeaders.includes(required)) return `${required} is not among the signed headers`;
  if (credentials.sessionToken !== undefined) {
    if (headerValue(request.headers, 'x-amz-security-token') !== credentials.sessionToken)
      return 'x-amz-security-token is missing or not the session token';
    if (!signedHeaders.includes('x-amz-security-token')) return 'x-amz-security-token is not signed';
  }
  const payloadHash = sha256Hex(request.body);
  const declared = request.headers['x-amz-content-sha256'];
  if (declared !== undefined && declared !== payloadHash)
    return 'x-amz-content-sha256 does not match the body';

  const [path = '/', query = ''] = request.url.split('?');
  const canonicalRequest = [
    request.method.toUpperCase(),
    canonicalPath(path),
    canonicalQuery(query),
    ...signedHeaders.map((name) => `${name}:${headerValue(request.headers, name)}`),
    '',
    signedHeaders.join(';'),
    payloadHash,
  ].join('\n');
  const scope = `${day}/${region}/${service}/aws4_request`;
  const stringToSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256Hex(canonicalRequest)].join('\n');
  const key = hmac(
    hmac(hmac(hmac(`AWS4${credentials.secretAccessKey}`, day!), region!), service!),
    'aws4_request',
  );
  const expected = hmac(key, stringToSign);
  const given = Buffer.from(signature!, 'hex');
  if (given.length !== expected.length || !timingSafeEqual(given, expected))
    return 'The request signature we calculated does not match the signature you provided';
  return undefined;
}
