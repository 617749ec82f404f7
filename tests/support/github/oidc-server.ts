// GitHub's OIDC token request for a job, on 127.0.0.1: what a job with `id-token: write` finds at
// ACTIONS_ID_TOKEN_REQUEST_URL. A GET with `Authorization: Bearer <ACTIONS_ID_TOKEN_REQUEST_TOKEN>` and an
// `audience` query gets `{ "value": <JWT> }`, a fresh token (its own `jti`) each time, issued by
// https://token.actions.githubusercontent.com with the repository and trigger in `sub`. `refuse` answers
// 403 as GitHub does for a job whose token may not be asked for.
import http from 'node:http';
import { randomBytes, randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';

export const GITHUB_OIDC_ISSUER = 'https://token.actions.githubusercontent.com';

export interface OidcServer {
  /** ACTIONS_ID_TOKEN_REQUEST_URL and ACTIONS_ID_TOKEN_REQUEST_TOKEN for the job's environment. */
  env: { ACTIONS_ID_TOKEN_REQUEST_URL: string; ACTIONS_ID_TOKEN_REQUEST_TOKEN: string };
  /** Every token handed out. */
  issued: string[];
  /** The audiences asked for, in order. */
  audiences: string[];
  close(): Promise<void>;
}

const b64 = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');

export async function startOidcServer(
  options: { subject?: string; refuse?: boolean } = {},
): Promise<OidcServer> {
  const requestToken = `oidc-request-${randomBytes(16).toString('hex')}`;
  const issued: string[] = [];
  const audiences: string[] = [];
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const send = (status: number, body: object) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (req.headers.authorization !== `Bearer ${requestToken}`)
      return send(401, { message: 'Bad credentials' });
    if (options.refuse) return send(403, { message: 'Resource not accessible by integration' });
    const audience = url.searchParams.get('audience') ?? 'https://github.com/octo';
    audiences.push(audience);
    const now = Math.floor(Date.now() / 1000);
    const token = [
      b64({ typ: 'JWT', alg: 'RS256', kid: 'test-key' }),
      b64({
        jti: randomUUID(),
        sub: options.subject ?? 'repo:octo/hello:ref:refs/heads/main',
        aud: audience,
        iss: GITHUB_OIDC_ISSUER,
        iat: now,
        nbf: now - 5,
        exp: now + 300,
      }),
      randomBytes(64).toString('base64url'),
    ].join('.');
    issued.push(token);
    send(200, { count: 1, value: token });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    env: {
      ACTIONS_ID_TOKEN_REQUEST_URL: `http://127.0.0.1:${port}/_apis/distributedtask/token?api-version=2.0`,
      ACTIONS_ID_TOKEN_REQUEST_TOKEN: requestToken,
    },
    issued,
    audiences,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
