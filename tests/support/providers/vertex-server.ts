// A local stand-in for Claude on Vertex AI as the Vertex SDK calls it: POST
// /v1/projects/{project}/locations/{region}/publishers/anthropic/models/{model}:streamRawPredict (or
// :rawPredict), a Bearer access token that the local token service issued (google-token-server.ts),
// `anthropic_version` in the body and no `model` field. Answers, streams and errors are the Messages API's
// own, from the scripted server behind gateway.ts.
// Betas: the Vertex SDK leaves them in the `anthropic-beta` header, and Vertex reads them there (and from
// `anthropic_beta` in the body); a beta Vertex does not offer is refused with "Unexpected value(s) … for the
// `anthropic-beta` header" (anomalyco/opencode#19700, #24496). Vertex's Anthropic schema has refused body
// fields the Messages API takes (`output_config`, `thinking.…block_binding.prefix_mismatch_behavior`:
// "Extra inputs are not permitted"; anthropics/claude-code#37746, anomalyco/opencode#46777) on some models and
// dates, and takes them on others; `refuse` plays a Vertex that refuses the given fields.
import type { ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import type { ModelServerOptions, ScriptStep } from '../anthropic/server.js';
import { BINDING_BETA } from '../anthropic/thinking.js';
import { ON_DEMAND_BETA, THRESHOLD_BETA } from '../anthropic/compaction.js';
import type { GoogleTokenServer } from './google-token-server.js';
import { extraInput, startPlatformServer, unwrapBody } from './gateway.js';
import type { Platform, PlatformServer, Refusal, Unwrapped } from './gateway.js';

export interface VertexPlace {
  project: string;
  region: string;
}

const PREDICT =
  /^\/v1\/projects\/([^/]+)\/locations\/([^/]+)\/publishers\/anthropic\/models\/([^/:]+):(rawPredict|streamRawPredict)$/;

const googleError = (status: number, state: string, message: string) => ({
  status,
  body: { error: { code: status, message, status: state } },
});

/** The betas this stand-in knows Claude on Vertex AI to offer (both compaction pages list Google Cloud: beta). */
export const VERTEX_BETAS: readonly string[] = [
  BINDING_BETA,
  'context-1m-2025-08-07',
  ON_DEMAND_BETA,
  THRESHOLD_BETA,
];

const invalidRequest = (message: string): Refusal => ({
  status: 400,
  body: { type: 'error', error: { type: 'invalid_request_error', message } },
});

/** The betas from the header and the body, refused if Vertex does not offer one; then the refused fields. */
function vertexRules(
  request: Unwrapped,
  header: string | string[] | undefined,
  refused: readonly string[],
): Refusal | Unwrapped {
  const fromHeader = [header ?? []].flat().flatMap((value) => value.split(','));
  const betas = [...new Set([...fromHeader, ...request.betas].map((beta) => beta.trim()).filter(Boolean))];
  const unknown = betas.filter((beta) => !VERTEX_BETAS.includes(beta));
  if (unknown.length)
    return invalidRequest(
      `Unexpected value(s) ${unknown.map((beta) => `\`${beta}\``).join(', ')} for the \`anthropic-beta\` header. Please consult our documentation at docs.anthropic.com or try again without the header.`,
    );
  for (const path of refused) {
    const message = extraInput(request.body, path);
    if (message) return invalidRequest(message);
  }
  return { ...request, betas };
}

function vertex(place: VertexPlace, tokens: GoogleTokenServer, refused: readonly string[]): Platform {
  return {
    basePath: '/v1',
    unwrap(request) {
      const [path = '', query] = request.url.split('?');
      const match = request.method === 'POST' && !query ? PREDICT.exec(path) : null;
      if (!match) return googleError(404, 'NOT_FOUND', `The requested URL ${request.url} was not found.`);
      const bearer = /^Bearer (.+)$/.exec(String(request.headers.authorization ?? ''))?.[1];
      if (!bearer || !tokens.accessTokens.includes(bearer))
        return googleError(401, 'UNAUTHENTICATED', 'Request had invalid authentication credentials.');
      const [, project, region, model, method] = match;
      if (project !== place.project || region !== place.region)
        return googleError(
          403,
          'PERMISSION_DENIED',
          `Permission denied on projects/${project}/locations/${region}`,
        );
      const unwrapped = unwrapBody(request.body, decodeURIComponent(model!), method === 'streamRawPredict');
      if ('status' in unwrapped) return unwrapped;
      return vertexRules(unwrapped, request.headers['anthropic-beta'], refused);
    },
    async answer(upstream: Response, res: ServerResponse) {
      res.writeHead(upstream.status, {
        'content-type': upstream.headers.get('content-type') ?? 'application/json',
      });
      if (!upstream.body) return void res.end();
      await new Promise<void>((resolve, reject) => {
        Readable.fromWeb(upstream.body as WebReadableStream)
          .on('error', reject)
          .pipe(res)
          .on('finish', resolve);
      });
    },
  };
}

export interface VertexServerOptions extends Omit<ModelServerOptions, 'apiKey'> {
  /** Body fields, as dotted paths (`output_config.effort`), that this Vertex refuses as unknown. */
  refuse?: readonly string[];
}

/** Vertex AI on 127.0.0.1 for `place`, accepting the access tokens `tokens` issued. */
export function startVertexServer(
  script: ScriptStep[],
  place: VertexPlace,
  tokens: GoogleTokenServer,
  { refuse = [], ...options }: VertexServerOptions = {},
): Promise<PlatformServer> {
  return startPlatformServer(script, vertex(place, tokens, refuse), options);
}
