// The Claude API's token endpoint as the Workload Identity Federation docs describe it, for the scripted model
// server: `POST /v1/oauth/token` takes the RFC 7523 jwt-bearer grant (WIF reference, "Token exchange
// request": grant_type, assertion, federation_rule_id, organization_id, service_account_id, workspace_id
// when the rule covers several) under the `oidc-federation-2026-04-01` beta, checks the OIDC token against
// the federation issuer and rule (issuer, audience, subject, expiry; "Use WIF with GitHub Actions": the rule
// matches the `sub` claim), and returns a short-lived bearer token (`access_token`, `token_type`,
// `expires_in`; the overview: tokens that expire in minutes). Errors take RFC 6749 §5.2's shape (`error`,
// `error_description`). API requests then carry `Authorization: Bearer` and the `oauth-2025-04-20` beta.
// Each OIDC token is taken once (a replayed `jti` is refused), so a client that exchanges a token twice fails.
import { randomBytes } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

export const GRANT_TYPE = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
export const FEDERATION_BETA = 'oidc-federation-2026-04-01';
export const OAUTH_BETA = 'oauth-2025-04-20';
/** The token endpoint takes assertions of at most 16 KiB (the SDK checks this too). */
const MAX_ASSERTION = 16 * 1024;

export interface FederationServerOptions {
  federationRuleId: string;
  organizationId: string;
  serviceAccountId: string;
  /** The federation issuer's `iss` and the audience it expects. */
  issuer: string;
  audience: string;
  /** The rule's match on the token's `sub` claim. */
  subject: RegExp;
  /** `expires_in` of each access token (seconds). Default 600. */
  lifetimeSeconds?: number;
  /** After this many API requests an access token counts as expired (401), however long it had left. */
  requestsPerToken?: number;
}

export interface TokenEndpoint {
  /** Every exchange asked for, in order, with what was refused (undefined when one was minted). */
  readonly exchanges: Array<{ body: unknown; beta: string; refused?: string }>;
  /** Every access token minted, and every OIDC token (assertion) taken. */
  readonly minted: string[];
  readonly assertions: string[];
  /** API requests refused for their bearer token (401). */
  readonly unauthorized: string[];
  exchange(raw: string, headers: IncomingHttpHeaders): { status: number; body: object };
  /** Undefined when the request carries a live access token under the OAuth beta; else the 401's message. */
  authorize(headers: IncomingHttpHeaders): string | undefined;
}

/** The payload of a compact JWT, or undefined when it is not one. */
export function jwtClaims(token: string): Record<string, unknown> | undefined {
  const parts = token.split('.');
  if (parts.length !== 3) return undefined;
  try {
    return JSON.parse(Buffer.from(parts[1]!, 'base64url').toString('utf8')) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

const betas = (headers: IncomingHttpHeaders): string[] =>
  String(headers['anthropic-beta'] ?? '')
    .split(',')
    .map((beta) => beta.trim());

export function tokenEndpoint(options: FederationServerOptions): TokenEndpoint {
  const live = new Map<string, { expiresAt: number; uses: number }>();
  const seenJti = new Set<string>();
  const endpoint: TokenEndpoint = {
    exchanges: [],
    minted: [],
    assertions: [],
    unauthorized: [],
    exchange(raw, headers) {
      let body: Record<string, unknown> | undefined;
      try {
        body = JSON.parse(raw) as Record<string, unknown>;
      } catch {
        body = undefined;
      }
      const entry: { body: unknown; beta: string; refused?: string } = {
        body,
        beta: String(headers['anthropic-beta'] ?? ''),
      };
      endpoint.exchanges.push(entry);
      const refuse = (status: number, error: string, description: string) => {
        entry.refused = `${error}: ${description}`;
        return { status, body: { error, error_description: description } };
      };
      if (!betas(headers).includes(FEDERATION_BETA))
        return refuse(400, 'invalid_request', `anthropic-beta: ${FEDERATION_BETA} is required`);
      if (!body || typeof body !== 'object') return refuse(400, 'invalid_request', 'the body must be JSON');
      if (body.grant_type !== GRANT_TYPE)
        return refuse(400, 'unsupported_grant_type', `grant_type must be ${GRANT_TYPE}`);
      for (const field of ['assertion', 'federation_rule_id', 'organization_id', 'service_account_id'])
        if (typeof body[field] !== 'string' || body[field] === '')
          return refuse(400, 'invalid_request', `${field} is required`);
      const assertion = body.assertion as string;
      if (assertion.length > MAX_ASSERTION)
        return refuse(400, 'invalid_request', 'assertion exceeds the 16 KiB limit');
      endpoint.assertions.push(assertion);
      const claims = jwtClaims(assertion);
      if (!claims) return refuse(400, 'invalid_request', 'assertion is not a JWT');
      const now = Date.now() / 1000;
      if (claims.iss !== options.issuer)
        return refuse(
          401,
          'invalid_grant',
          'the identity token was not issued by a federation issuer of this organization',
        );
      if (claims.aud !== options.audience)
        return refuse(
          401,
          'invalid_grant',
          "the identity token's aud claim is not the audience the federation issuer expects",
        );
      if (typeof claims.exp !== 'number' || claims.exp <= now)
        return refuse(401, 'invalid_grant', 'the identity token has expired');
      if (typeof claims.jti !== 'string' || seenJti.has(claims.jti))
        return refuse(401, 'invalid_grant', 'the identity token was already used');
      seenJti.add(claims.jti);
      if (
        body.federation_rule_id !== options.federationRuleId ||
        body.organization_id !== options.organizationId ||
        body.service_account_id !== options.serviceAccountId ||
        typeof claims.sub !== 'string' ||
        !options.subject.test(claims.sub)
      )
        return refuse(401, 'invalid_grant', 'the identity token does not satisfy the federation rule');
      const lifetime = options.lifetimeSeconds ?? 600;
      const token = `sk-ant-oat01-${randomBytes(24).toString('base64url')}`;
      live.set(token, { expiresAt: now + lifetime, uses: 0 });
      endpoint.minted.push(token);
      return { status: 200, body: { access_token: token, token_type: 'Bearer', expires_in: lifetime } };
    },
    authorize(headers) {
      const refuse = (message: string) => {
        endpoint.unauthorized.push(message);
        return message;
      };
      const token = /^Bearer (.+)$/.exec(String(headers.authorization ?? ''))?.[1];
      if (headers['x-api-key'])
        return refuse('an API key was sent: this organization authenticates with WIF');
      if (!token) return refuse('no bearer token');
      if (!betas(headers).includes(OAUTH_BETA)) return refuse(`anthropic-beta: ${OAUTH_BETA} is required`);
      const state = live.get(token);
      if (!state) return refuse('invalid bearer token');
      state.uses++;
      const spent = options.requestsPerToken !== undefined && state.uses > options.requestsPerToken;
      if (spent || state.expiresAt <= Date.now() / 1000) {
        live.delete(token);
        return refuse('the access token has expired');
      }
      return undefined;
    },
  };
  return endpoint;
}
