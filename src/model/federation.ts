// Keyless auth to the Claude API: Workload Identity Federation (the docs' "WIF"). The job's OIDC token is
// exchanged at the API's token endpoint (`POST /v1/oauth/token`, RFC 7523's jwt-bearer grant) for a
// short-lived access token, by the SDK's own exchange (`oidcFederationProvider`). The SDK wraps the provider
// in its token cache: the token is exchanged again before it expires, and a request refused with 401 is sent
// once more with a fresh one. The credentials are given explicitly, so that nothing else the runner holds (a
// profile, a stray ANTHROPIC_* variable) is picked up. Each exchange asks the identity source for a fresh
// OIDC token (GitHub's may not be exchanged twice), and every token, OIDC or access, is handed to `onSecret`
// the moment it exists, so that the log masks it and the redactor hides it everywhere else.
import { oidcFederationProvider } from '@anthropic-ai/sdk/lib/credentials/oidc-federation';
import { WorkloadIdentityError, type AccessTokenProvider } from '@anthropic-ai/sdk/lib/credentials/types';

/** Keyless auth's names, as the WIF reference spells the token exchange's fields. */
export interface Federation {
  /** `federation_rule_id`: the rule (`fdrl_…`) the token is checked against. */
  federationRuleId: string;
  /** `organization_id`: the Anthropic organization's UUID. */
  organizationId: string;
  /** `service_account_id`: the service account (`svac_…`) the token acts as. */
  serviceAccountId?: string;
  /** `workspace_id`: the workspace (`wrkspc_…` or `default`) to scope the token to, when the rule has several. */
  workspaceId?: string;
  /** The `aud` the OIDC token is asked for: the audience the federation issuer expects. */
  audience: string;
}

/** Where a fresh OIDC token comes from, for an audience: GitHub's token request, or a file (the CLI). */
export type IdentityTokenSource = (audience: string) => Promise<string>;

export interface FederationOptions extends Federation {
  identityToken: IdentityTokenSource;
  /** Called with every token the moment it exists: mask and redact it. */
  onSecret: (value: string) => void;
}

/** A failure of keyless auth, as one sentence that names the fix. */
export class FederationError extends Error {
  override name = 'FederationError';
}

/** The access-token provider to give the SDK client as `credentials`. */
export function federatedCredentials(
  options: FederationOptions,
  endpoint: { baseURL: string; fetch: typeof fetch },
): PrimedProvider {
  const exchange = oidcFederationProvider({
    federationRuleId: options.federationRuleId,
    organizationId: options.organizationId,
    serviceAccountId: options.serviceAccountId,
    workspaceId: options.workspaceId,
    baseURL: endpoint.baseURL.replace(/\/+$/, ''),
    fetch: endpoint.fetch,
    identityTokenProvider: async () => {
      let token: string;
      try {
        token = await options.identityToken(options.audience);
      } catch (error) {
        throw new FederationError(oidcRefused(error));
      }
      options.onSecret(token);
      return token;
    },
  });
  const mint: AccessTokenProvider = async (opts) => {
    try {
      const minted = await exchange(opts);
      options.onSecret(minted.token);
      return minted;
    } catch (error) {
      if (error instanceof WorkloadIdentityError) throw new FederationError(exchangeRefused(error, options));
      throw error;
    }
  };
  // The first exchange is made before the first request (`prime`), so that a refusal ends the run at once
  // instead of going through the client's retries; the token it minted serves the client's first call.
  let primed: ReturnType<AccessTokenProvider> | undefined;
  const provider = ((opts) => {
    const first = primed;
    primed = undefined;
    return first ?? mint(opts);
  }) as PrimedProvider;
  provider.prime = async () => {
    primed = mint();
    await primed;
  };
  return provider;
}

/** An access-token provider whose first exchange can be made ahead of the first request. */
export type PrimedProvider = AccessTokenProvider & { prime(): Promise<void> };

/** GitHub would not give the job its OIDC token. */
function oidcRefused(error: unknown): string {
  const detail = (error instanceof Error ? error.message : String(error)).replace(/\s+/g, ' ').trim();
  return `keyless auth: GitHub refused the job's OIDC token request (${detail}); give the job \`permissions: id-token: write\` (a pull request from a fork never gets one)`;
}

/** The token endpoint's own error code and words, out of the SDK's (already redacted) error body. */
function oauthError(error: WorkloadIdentityError): { code: string; description: string } {
  const body = error.body as { error?: unknown; error_description?: unknown } | string | undefined;
  if (body && typeof body === 'object')
    return { code: String(body.error ?? ''), description: String(body.error_description ?? '') };
  try {
    const parsed = JSON.parse(String(body ?? '')) as { error?: unknown; error_description?: unknown };
    return { code: String(parsed.error ?? ''), description: String(parsed.error_description ?? '') };
  } catch {
    return { code: '', description: String(body ?? '') };
  }
}

/** The token endpoint refused the exchange: the audience, the rule, or the request itself. */
function exchangeRefused(error: WorkloadIdentityError, federation: Federation): string {
  if (error.statusCode === null) return `keyless auth: ${error.message}`;
  const { code, description } = oauthError(error);
  const said = [code, description].filter(Boolean).join(': ') || `status ${error.statusCode}`;
  if (/\baud(ience)?\b/i.test(description))
    return `keyless auth: the token endpoint refused the OIDC token's audience '${federation.audience}' (${said}); set the audience input to the audience the federation issuer expects`;
  if (error.statusCode === 401 || error.statusCode === 403 || code === 'invalid_grant')
    return `keyless auth: federation rule ${federation.federationRuleId} refused the job's OIDC token (${said}); make the rule in the Claude Console match this repository, branch and event (its authentication events show why), or check federation_rule_id, organization_id and service_account_id`;
  return `keyless auth: the token exchange failed (${said}); check federation_rule_id, organization_id, service_account_id and workspace_id`;
}

/** A FederationError anywhere in the chain of causes (the SDK may wrap it). */
export function federationFailure(error: unknown): FederationError | undefined {
  for (let cause = error, depth = 0; cause instanceof Error && depth < 5; depth++) {
    if (cause instanceof FederationError) return cause;
    cause = (cause as { cause?: unknown }).cause;
  }
  return undefined;
}
