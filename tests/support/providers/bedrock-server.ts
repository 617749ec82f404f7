// A local stand-in for the Amazon Bedrock runtime as the Bedrock SDK calls it for Claude: InvokeModel and
// InvokeModelWithResponseStream at /model/{modelId}/invoke[-with-response-stream], every request SigV4-signed
// for service `bedrock` (checked by an independent verifier, sigv4.ts), `anthropic_version` in the body and
// no `model` field. Streams come back in AWS event-stream binary framing: one `chunk` event per API event,
// its JSON payload `{"bytes": <base64 of the event>}`; an API `error` event becomes the AWS exception that
// ends a Bedrock stream (serviceUnavailableException for overloaded_error…). Errors come back as AWS JSON errors (`{"message"}`
// with an `x-amzn-ErrorType` header). The Messages logic is the scripted server's (gateway.ts).
// Betas come only from `anthropic_beta` in the body. Bedrock spells one field its own way: the AWS user guide
// ("Preserved thinking") says `thinking.block_binding` accepts one field, `mismatch_behavior`, and the
// Anthropic name `prefix_mismatch_behavior` gets a 400 `…block_binding.prefix_mismatch_behavior: Extra
// inputs are not permitted` (vercel/ai#20729). In November 2026 a client library went back to the Anthropic
// name, calling Bedrock's a deprecated alias; `bindingField` plays a Bedrock that takes only that name.
import { EventStreamCodec } from '@smithy/eventstream-codec';
import type { ServerResponse } from 'node:http';
import type { ModelServerOptions, ScriptStep } from '../anthropic/server.js';
import type { Json } from '../anthropic/types.js';
import { extraInput, sseData, startPlatformServer, unwrapBody } from './gateway.js';
import type { Platform, PlatformServer, Refusal, Unwrapped } from './gateway.js';
import { sigV4Problem, type AwsTestCredentials } from './sigv4.js';
import { ON_DEMAND_BETA } from '../anthropic/compaction.js';

/** Short-lived credentials as aws-actions/configure-aws-credentials exports them after its OIDC exchange. */
export const BEDROCK_CREDENTIALS: AwsTestCredentials = {
  accessKeyId: 'ASIAQTESTTESTTESTTEST',
  secretAccessKey: 'bedrockTestSecretKey0000000000000000000000',
  sessionToken: 'IQoJb3JpZ2luX2VjEBedrockTestSessionToken0000000000000000000000',
  region: 'us-west-2',
  service: 'bedrock',
};

/** The environment a workflow step has after configure-aws-credentials. */
export function awsEnv(credentials: AwsTestCredentials = BEDROCK_CREDENTIALS): Record<string, string> {
  return {
    AWS_ACCESS_KEY_ID: credentials.accessKeyId,
    AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey,
    ...(credentials.sessionToken ? { AWS_SESSION_TOKEN: credentials.sessionToken } : {}),
    AWS_REGION: credentials.region,
    AWS_DEFAULT_REGION: credentials.region,
  };
}

const INVOKE = /^\/model\/([^/]+)\/(invoke|invoke-with-response-stream)$/;

/** Bedrock's names for the API's error statuses. */
function awsError(status: number): { status: number; type: string } {
  if (status === 400) return { status, type: 'ValidationException' };
  if (status === 401 || status === 403) return { status: 403, type: 'AccessDeniedException' };
  if (status === 404) return { status, type: 'ResourceNotFoundException' };
  if (status === 429) return { status, type: 'ThrottlingException' };
  if (status === 529 || status === 503) return { status: 503, type: 'ServiceUnavailableException' };
  return { status: 500, type: 'InternalServerException' };
}

const refuse = (status: number, type: string, message: string): Refusal => ({
  status,
  body: { message },
  headers: { 'x-amzn-errortype': `${type}:http://internal.amazon.com/coral/com.amazon.bedrock/` },
});

const toUtf8 = (bytes: Uint8Array): string => Buffer.from(bytes).toString('utf8');
const fromUtf8 = (text: string): Uint8Array => Buffer.from(text, 'utf8');
const codec = new EventStreamCodec(toUtf8, fromUtf8);
const header = (value: string) => ({ type: 'string' as const, value });

/** The exception Bedrock ends a stream with in place of an API `error` event of each type. */
const STREAM_EXCEPTIONS: Record<string, string> = {
  overloaded_error: 'serviceUnavailableException',
  rate_limit_error: 'throttlingException',
  api_error: 'internalServerException',
  timeout_error: 'modelTimeoutException',
};

function exceptionFrame(data: string): Uint8Array {
  const { error } = JSON.parse(data) as { error?: { type?: string; message?: string } };
  return codec.encode({
    headers: {
      ':exception-type': header(STREAM_EXCEPTIONS[error?.type ?? ''] ?? 'modelStreamErrorException'),
      ':content-type': header('application/json'),
      ':message-type': header('exception'),
    },
    body: fromUtf8(JSON.stringify({ message: error?.message ?? 'stream error' })),
  });
}

function chunkFrame(data: string): Uint8Array {
  const payload = JSON.stringify({ bytes: Buffer.from(data, 'utf8').toString('base64') });
  return codec.encode({
    headers: {
      ':event-type': header('chunk'),
      ':content-type': header('application/json'),
      ':message-type': header('event'),
    },
    body: fromUtf8(payload),
  });
}

/** The one field Bedrock's `thinking.block_binding` accepts. */
export type BedrockBindingField = 'mismatch_behavior' | 'prefix_mismatch_behavior';

/**
 * Bedrock's schema for `thinking.block_binding`: any field but `field` is refused as the service refuses it;
 * `field` is handed on under the Messages API's name.
 */
function withBedrockBinding(request: Unwrapped, field: BedrockBindingField): Refusal | Unwrapped {
  const thinking = request.body.thinking as Json | undefined;
  const binding = thinking?.block_binding as Json | undefined;
  if (typeof binding !== 'object' || binding === null) return request;
  for (const key of Object.keys(binding)) {
    const refused = key !== field && extraInput(request.body, `thinking.block_binding.${key}`);
    if (refused) return refuse(400, 'ValidationException', refused);
  }
  const { [field]: behaviour } = binding;
  const handedOn = behaviour === undefined ? {} : { prefix_mismatch_behavior: behaviour };
  return { ...request, body: { ...request.body, thinking: { ...thinking, block_binding: handedOn } } };
}

function bedrock(credentials: AwsTestCredentials, bindingField: BedrockBindingField): Platform {
  return {
    basePath: '',
    unwrap(request) {
      if (request.method !== 'POST') return refuse(404, 'UnknownOperationException', 'Unknown operation');
      const [path = '', query] = request.url.split('?');
      const match = INVOKE.exec(path);
      if (!match || query)
        return refuse(404, 'UnknownOperationException', `Unknown operation: ${request.url}`);
      const problem = sigV4Problem(request, credentials);
      if (problem) return refuse(403, 'InvalidSignatureException', problem);
      const unwrapped = unwrapBody(request.body, decodeURIComponent(match[1]!), match[2] !== 'invoke');
      if ('status' in unwrapped) return unwrapped;
      // The on-demand compaction page lists Amazon Bedrock as "not available" (threshold compaction is in beta).
      if (unwrapped.betas.includes(ON_DEMAND_BETA) || unwrapped.body.compaction !== undefined)
        return refuse(400, 'ValidationException', 'compaction on demand is not available on Amazon Bedrock');
      return withBedrockBinding(unwrapped, bindingField);
    },
    async answer(upstream: Response, res: ServerResponse) {
      if (!upstream.ok) {
        const body = (await upstream.json()) as { error?: { message?: string } };
        const { status, type } = awsError(upstream.status);
        const refusal = refuse(status, type, body.error?.message ?? `status ${upstream.status}`);
        res.writeHead(refusal.status, { 'content-type': 'application/json', ...refusal.headers });
        res.end(JSON.stringify(refusal.body));
        return;
      }
      if (!upstream.headers.get('content-type')?.includes('text/event-stream')) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(await upstream.text());
        return;
      }
      res.writeHead(200, {
        'content-type': 'application/vnd.amazon.eventstream',
        'x-amzn-bedrock-content-type': 'application/json',
      });
      for await (const data of sseData(upstream.body!)) {
        const isError = (JSON.parse(data) as { type?: string }).type === 'error';
        res.write(isError ? exceptionFrame(data) : chunkFrame(data));
        if (isError) break;
      }
      res.end();
    },
  };
}

export interface BedrockServerOptions extends Omit<ModelServerOptions, 'apiKey'> {
  /** The name `thinking.block_binding` takes (default `mismatch_behavior`, as the AWS user guide says). */
  bindingField?: BedrockBindingField;
}

/** A Bedrock runtime on 127.0.0.1 that accepts requests signed with `credentials`. */
export function startBedrockServer(
  script: ScriptStep[],
  credentials: AwsTestCredentials = BEDROCK_CREDENTIALS,
  { bindingField = 'mismatch_behavior', ...options }: BedrockServerOptions = {},
): Promise<PlatformServer> {
  return startPlatformServer(script, bedrock(credentials, bindingField), options);
}
