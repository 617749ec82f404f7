// A local stand-in for Claude on Vertex AI as the Vertex SDK calls it: POST
// /v1/projects/{project}/locations/{region}/publishers/anthropic/models/{model}:streamRawPredict (or
// :rawPredict), a Bearer access token that the local token service issued (google-token-server.ts),
// `anthropic_version` in the body and no `model` field. Answers, streams and errors are the Messages API's
// own, from the scripted server behind provider-gateway.ts.
import type { ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import type { ModelServerOptions, ScriptStep } from './anthropic-server.js';
import type { GoogleTokenServer } from './google-token-server.js';
import { startPlatformServer, unwrapBody, type Platform, type PlatformServer } from './provider-gateway.js';

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

function vertex(place: VertexPlace, tokens: GoogleTokenServer): Platform {
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
      return unwrapBody(request.body, decodeURIComponent(model!), method === 'streamRawPredict');
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

/** Vertex AI on 127.0.0.1 for `place`, accepting the access tokens `tokens` issued. */
export function startVertexServer(
  script: ScriptStep[],
  place: VertexPlace,
  tokens: GoogleTokenServer,
  options: Omit<ModelServerOptions, 'apiKey'> = {},
): Promise<PlatformServer> {
  return startPlatformServer(script, vertex(place, tokens), options);
}
