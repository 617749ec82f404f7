// The two token endpoints of keyless Google authentication from GitHub Actions, on 127.0.0.1: the runner's
// OIDC token endpoint (ACTIONS_ID_TOKEN_REQUEST_URL, which answers `{"value": <id token>}` to a bearer
// request token) and Google's Security Token Service, which exchanges that id token for an access token
// (RFC 8693 token exchange). `credentialsFile` writes the workload identity federation config that
// google-github-actions/auth writes (an `external_account` file, no key), pointed at these endpoints, so
// google-auth-library runs its real flow with no outside call.
import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { readBody } from '../http-body.js';

export const WIF_AUDIENCE =
  '//iam.googleapis.com/projects/123456789/locations/global/workloadIdentityPools/github/providers/todo-agent';

export interface GoogleTokenServer {
  url: string;
  /** The runner's request token, which the credentials file carries as a bearer header. */
  requestToken: string;
  /** Access tokens handed out, newest last. */
  accessTokens: string[];
  /** Every token exchange asked for, valid or not. */
  exchanges: URLSearchParams[];
  /** Writes the external_account credentials file into `dir` (as the auth action does) and returns its path. */
  credentialsFile(dir: string): Promise<string>;
  close(): Promise<void>;
}

const TOKEN_TYPE_JWT = 'urn:ietf:params:oauth:token-type:jwt';
const token = (prefix: string) => `${prefix}${randomBytes(24).toString('base64url')}`;

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

export async function startGoogleTokenServer(): Promise<GoogleTokenServer> {
  const requestToken = token('ghrt_');
  const idTokens = new Set<string>();
  const accessTokens: string[] = [];
  const exchanges: URLSearchParams[] = [];

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (req.method === 'GET' && url.pathname === '/oidc') {
      if (req.headers.authorization !== `Bearer ${requestToken}`)
        return json(res, 401, { message: 'Bad request token' });
      if (url.searchParams.get('audience') !== `https:${WIF_AUDIENCE}`)
        return json(res, 400, { message: 'unexpected audience' });
      const idToken = token('eyJ.oidc.');
      idTokens.add(idToken);
      return json(res, 200, { count: 1, value: idToken });
    }
    if (req.method === 'POST' && url.pathname === '/v1/token') {
      const form = new URLSearchParams(await readBody(req));
      exchanges.push(form);
      const problem =
        form.get('grant_type') !== 'urn:ietf:params:oauth:grant-type:token-exchange'
          ? 'grant_type must be token-exchange'
          : form.get('subject_token_type') !== TOKEN_TYPE_JWT
            ? 'subject_token_type must be jwt'
            : form.get('audience') !== WIF_AUDIENCE
              ? 'audience does not name the workload identity provider'
              : !idTokens.has(form.get('subject_token') ?? '')
                ? 'subject_token was not issued by the OIDC endpoint'
                : undefined;
      if (problem) return json(res, 400, { error: 'invalid_grant', error_description: problem });
      const accessToken = token('ya29.test-');
      accessTokens.push(accessToken);
      return json(res, 200, {
        access_token: accessToken,
        issued_token_type: 'urn:ietf:params:oauth:token-type:access_token',
        token_type: 'Bearer',
        expires_in: 3600,
      });
    }
    json(res, 404, { error: 'not_found' });
  }

  const server = http.createServer((req, res) => {
    handle(req, res).catch(() => res.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    requestToken,
    accessTokens,
    exchanges,
    async credentialsFile(dir) {
      const path = join(dir, `gha-creds-${randomBytes(6).toString('hex')}.json`);
      const config = {
        type: 'external_account',
        audience: WIF_AUDIENCE,
        subject_token_type: TOKEN_TYPE_JWT,
        token_url: `${url}/v1/token`,
        credential_source: {
          url: `${url}/oidc?audience=${encodeURIComponent(`https:${WIF_AUDIENCE}`)}`,
          headers: { Authorization: `Bearer ${requestToken}` },
          format: { type: 'json', subject_token_field_name: 'value' },
        },
      };
      await writeFile(path, JSON.stringify(config, null, 2));
      return path;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
