// Which platform serves Claude (the Anthropic API, Amazon Bedrock or Google Vertex AI), the model id that
// platform knows, and the SDK client that speaks to it. The platform SDKs are loaded only when chosen, so
// a run on the Anthropic API never loads the AWS or Google libraries.
import Anthropic from '@anthropic-ai/sdk';
import { readFileSync } from 'node:fs';

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
  /** Another endpoint of the same shape (a proxy or gateway, or a local server in tests). */
  baseURL?: string;
  maxRetries: number;
  env?: NodeJS.ProcessEnv;
}

/** The part of an SDK client the model module uses: every platform client has it. */
export interface MessagesClient {
  messages: { stream: Anthropic['messages']['stream'] };
}

export interface ProviderClient {
  client: Promise<MessagesClient>;
  /**
   * Whether a request may carry our own encoding of its body. The platform SDKs move `model` into the URL
   * and the API version into the body, which they can only do with the body they encoded themselves.
   */
  ownBody: boolean;
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

const read = (env: NodeJS.ProcessEnv, name: string): string | undefined => env[name]?.trim() || undefined;

/** Vertex's project: our own variable first, then those google-github-actions/auth exports. */
function vertexProject(env: NodeJS.ProcessEnv): string | undefined {
  return (
    read(env, 'ANTHROPIC_VERTEX_PROJECT_ID') ??
    read(env, 'GOOGLE_CLOUD_PROJECT') ??
    read(env, 'GCLOUD_PROJECT') ??
    read(env, 'CLOUDSDK_CORE_PROJECT')
  );
}

/** What a provider needs from the environment before any call, as one sentence; undefined when all is set. */
export function providerProblem(
  provider: Provider,
  env: NodeJS.ProcessEnv = process.env,
): string | undefined {
  if (provider === 'bedrock' && !read(env, 'AWS_REGION') && !read(env, 'AWS_DEFAULT_REGION'))
    return 'provider bedrock needs AWS_REGION (aws-actions/configure-aws-credentials sets it from aws-region)';
  if (provider === 'vertex' && !read(env, 'CLOUD_ML_REGION'))
    return 'provider vertex needs CLOUD_ML_REGION (the Vertex AI region, e.g. us-east5 or global)';
  if (provider === 'vertex' && !vertexProject(env))
    return 'provider vertex needs a project id: set ANTHROPIC_VERTEX_PROJECT_ID, or project_id on google-github-actions/auth';
  return undefined;
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
          awsRegion: read(env, 'AWS_REGION') ?? read(env, 'AWS_DEFAULT_REGION'),
          awsAccessKey: null,
          awsSecretKey: null,
        }) as unknown as MessagesClient,
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
          region: read(env, 'CLOUD_ML_REGION'),
          projectId: vertexProject(env),
        }) as unknown as MessagesClient,
    );
    return { client, ownBody: false };
  }
  const apiKey = options.apiKey || read(env, 'ANTHROPIC_API_KEY');
  if (!apiKey)
    throw new Error('No Anthropic API key: set ANTHROPIC_API_KEY (or the anthropic_api_key input).');
  const client = new Anthropic({
    ...common,
    apiKey,
    baseURL: common.baseURL || read(env, 'ANTHROPIC_BASE_URL'),
  });
  return { client: Promise.resolve(client), ownBody: true };
}

/** Where google-github-actions/auth says its credentials file is (in the workspace, by default). */
export function credentialFiles(env: NodeJS.ProcessEnv = process.env): string[] {
  const names = [
    'GOOGLE_APPLICATION_CREDENTIALS',
    'CLOUDSDK_AUTH_CREDENTIAL_FILE_OVERRIDE',
    'GOOGLE_GHA_CREDS_PATH',
  ];
  return [...new Set(names.map((name) => read(env, name)).filter((path) => path !== undefined))];
}

/**
 * Fields of a Google credentials file that hold a secret (private_key, client_secret, refresh_token…), at any
 * depth; every header value too (they carry the runner's OIDC request token). Not the names and types of
 * tokens (subject_token_type, subject_token_field_name) nor their URLs.
 */
const SECRET_FIELD = /(key|secret|token|authorization|password)$/i;

/**
 * The secret values inside the Google credentials file GOOGLE_APPLICATION_CREDENTIALS names, for masking and
 * redaction: google-github-actions/auth writes that file into the workspace, where the agent's tools can read
 * it. A missing or unreadable file gives none (the provider's own error says so when it is needed).
 */
export function credentialFileSecrets(env: NodeJS.ProcessEnv = process.env): string[] {
  const path = read(env, 'GOOGLE_APPLICATION_CREDENTIALS');
  if (!path) return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    return [];
  }
  const found: string[] = [];
  const visit = (value: unknown, secret: boolean): void => {
    if (typeof value === 'string') {
      // URLs and URNs (token_url, subject_token_type) are addresses and names, not secrets.
      if (secret && !/^(https?|urn):/i.test(value)) found.push(value.replace(/^bearer\s+/i, ''));
    } else if (typeof value === 'object' && value !== null) {
      const inHeaders = !Array.isArray(value) && secret;
      for (const [key, child] of Object.entries(value))
        visit(child, inHeaders || SECRET_FIELD.test(key) || key === 'headers');
    }
  };
  visit(parsed, false);
  return found;
}
