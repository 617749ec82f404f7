// Which platform serves Claude (the Anthropic API, Amazon Bedrock or Google Vertex AI), the model id that
// platform knows, and the SDK client that speaks to it. The platform SDKs are loaded only when chosen, so
// a run on the Anthropic API never loads the AWS or Google libraries.
import type Anthropic from '@anthropic-ai/sdk';
import type { FederationOptions, PrimedProvider } from './federation.js';

export const PROVIDERS = ['anthropic', 'bedrock', 'vertex'] as const;
export type Provider = (typeof PROVIDERS)[number];

/** Who serves the model on each provider, as error sentences name it. */
export const SERVICE_NAMES: Record<Provider, string> = {
  anthropic: 'the Anthropic API',
  bedrock: 'Amazon Bedrock',
  vertex: 'Vertex AI',
};

export interface ProviderOptions {
  provider?: Provider;
  /** Anthropic API only. */
  apiKey?: string;
  /** Anthropic API only: keyless auth through Workload Identity Federation instead of a key. */
  federation?: FederationOptions;
  /** Another endpoint of the same shape (a proxy or gateway, or a local server in tests). */
  baseURL?: string;
  maxRetries: number;
  env?: NodeJS.ProcessEnv;
}

/** The part of an SDK client the model module uses: every platform client has it. */
export interface MessagesClient {
  messages: { stream: Anthropic['messages']['stream'] };
  /** The beta namespace: compaction's blocks and usage come whole only through its stream. */
  beta: { messages: { stream: Anthropic['beta']['messages']['stream'] } };
}

export interface ProviderClient {
  client: Promise<MessagesClient>;
  /**
   * Whether a request may carry our own encoding of its body. The platform SDKs move `model` into the URL
   * and the API version into the body, which they can only do with the body they encoded themselves.
   */
  ownBody: boolean;
  /** Resolves once the client can authenticate (keyless auth's first exchange made); throws why it cannot. */
  ready?: () => Promise<void>;
}

/** Each platform's id for the default model; any other `model` input is sent as given. */
const PLATFORM_IDS: Record<string, Record<Provider, string>> = {
  'claude-sonnet-5-5': {
    anthropic: 'claude-sonnet-5-5',
    // The global cross-region inference profile: on-demand Bedrock calls need a profile, not the bare model id.
    bedrock: 'global.anthropic.claude-sonnet-5-5',
    vertex: 'claude-sonnet-5-5',
  },
};

/** The id to send for `model` on `provider`. */
export function platformModelId(provider: Provider, model: string): string {
  return PLATFORM_IDS[model]?.[provider] ?? model;
}

/** An environment variable, trimmed; undefined when unset or blank. */
export const envValue = (env: NodeJS.ProcessEnv, name: string): string | undefined =>
  env[name]?.trim() || undefined;

/** Vertex's project: our own variable first, then those google-github-actions/auth exports. */
function vertexProject(env: NodeJS.ProcessEnv): string | undefined {
  return (
    envValue(env, 'ANTHROPIC_VERTEX_PROJECT_ID') ??
    envValue(env, 'GOOGLE_CLOUD_PROJECT') ??
    envValue(env, 'GCLOUD_PROJECT') ??
    envValue(env, 'CLOUDSDK_CORE_PROJECT')
  );
}

/** What a provider needs from the environment before any call, as one sentence; undefined when all is set. */
export function providerProblem(
  provider: Provider,
  env: NodeJS.ProcessEnv = process.env,
): string | undefined {
  if (provider === 'bedrock' && !envValue(env, 'AWS_REGION') && !envValue(env, 'AWS_DEFAULT_REGION'))
    return 'provider bedrock needs AWS_REGION (aws-actions/configure-aws-credentials sets it from aws-region)';
  if (provider === 'vertex' && !envValue(env, 'CLOUD_ML_REGION'))
    return 'provider vertex needs CLOUD_ML_REGION (the Vertex AI region, e.g. us-east5 or global)';
  if (provider === 'vertex' && !vertexProject(env))
    return 'provider vertex needs a project id: set ANTHROPIC_VERTEX_PROJECT_ID, or project_id on google-github-actions/auth';
  return undefined;
}

/**
 * The host the model's requests go to: the base URL's, else the provider's own for its region. The tools'
 * network gate guards it, so that no allowlist reaches it unless the maintainer names it.
 */
export function endpointHost(
  provider: Provider,
  baseURL: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
): string | undefined {
  if (baseURL) {
    try {
      return new URL(baseURL).hostname.replace(/^\[|\]$/g, '');
    } catch {
      return undefined;
    }
  }
  if (provider === 'anthropic') return 'api.anthropic.com';
  if (provider === 'bedrock') {
    const region = envValue(env, 'AWS_REGION') ?? envValue(env, 'AWS_DEFAULT_REGION');
    return region && `bedrock-runtime.${region}.amazonaws.com`;
  }
  const region = envValue(env, 'CLOUD_ML_REGION');
  return region === 'global' ? 'aiplatform.googleapis.com' : region && `${region}-aiplatform.googleapis.com`;
}

/** The client for `options.provider`; throws the provider's problem sentence before any call. */
export function connect(options: ProviderOptions): ProviderClient {
  const provider = options.provider ?? 'anthropic';
  const env = options.env ?? process.env;
  const problem = providerProblem(provider, env);
  if (problem) throw new Error(problem);
  // Nothing in this process registers an OpenTelemetry tracer provider, so spans would only cost time.
  const common = {
    maxRetries: options.maxRetries,
    openTelemetry: false as const,
    baseURL: options.baseURL || undefined,
  };
  if (provider === 'bedrock') {
    const client = import('@anthropic-ai/bedrock-sdk').then(
      ({ AnthropicBedrock }) =>
        // Credentials come from the AWS chain: AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN
        // as configure-aws-credentials exports them after its OIDC exchange.
        new AnthropicBedrock({
          ...common,
          awsRegion: envValue(env, 'AWS_REGION') ?? envValue(env, 'AWS_DEFAULT_REGION'),
          awsAccessKey: null,
          awsSecretKey: null,
        }),
    );
    return { client, ownBody: false };
  }
  if (provider === 'vertex') {
    const client = import('@anthropic-ai/vertex-sdk').then(
      ({ AnthropicVertex }) =>
        // Credentials come from Application Default Credentials: the GOOGLE_APPLICATION_CREDENTIALS file
        // google-github-actions/auth writes (a workload identity federation config, no key).
        new AnthropicVertex({
          ...common,
          region: envValue(env, 'CLOUD_ML_REGION'),
          projectId: vertexProject(env),
        }),
    );
    return { client, ownBody: false };
  }
  const baseURL = common.baseURL || envValue(env, 'ANTHROPIC_BASE_URL');
  const { federation } = options;
  const apiKey = federation ? undefined : options.apiKey || envValue(env, 'ANTHROPIC_API_KEY');
  if (!federation && !apiKey)
    throw new Error('No Anthropic API key: set ANTHROPIC_API_KEY (or the anthropic_api_key input).');
  // Loaded on demand like the others: the action's first GitHub write goes out before the SDK is loaded.
  if (!federation) {
    const client = import('@anthropic-ai/sdk').then(
      ({ default: Anthropic }) => new Anthropic({ ...common, apiKey, baseURL }),
    );
    return { client, ownBody: true };
  }
  const credentials: Promise<PrimedProvider> = import('./federation.js').then(({ federatedCredentials }) =>
    federatedCredentials(federation, {
      baseURL: baseURL ?? 'https://api.anthropic.com',
      fetch: globalThis.fetch.bind(globalThis),
    }),
  );
  // Only these credentials: no key, no token, no profile from the environment.
  const client = Promise.all([import('@anthropic-ai/sdk'), credentials]).then(
    ([{ default: Anthropic }, provider]) => new Anthropic({ ...common, baseURL, credentials: provider }),
  );
  return { client, ownBody: true, ready: async () => (await credentials).prime() };
}
