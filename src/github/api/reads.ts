// The github tool's reads: GET requests only, a redirect never followed, each one counted.
import type { Octokit } from './octokit.js';

/** GitHub's GET requests only: what the github tool may ask, through the same throttling as everything else. */
export type ReadRequest = Octokit['request'];

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/**
 * A request function that only reads: anything but a GET is refused before it is sent; `counted` hears of
 * each read sent. A redirect is never followed: GitHub answers one for an issue transferred to another
 * repository, which this repository's reader must not show as its own. A read that asks for
 * `redirect: 'manual'` itself (a job's log, a signed URL) gets the redirect as its answer; any other read
 * throws `Redirected`, saying where it led.
 */
export function readOnlyRequest(octokit: Octokit, counted: () => void): ReadRequest {
  const read = (async (route: string, params?: Record<string, unknown>) => {
    const method = (params?.method as string | undefined) ?? route.split(' ')[0];
    if (!route.startsWith('GET ') || (method && method.toUpperCase() !== 'GET'))
      throw new Error(`the github tool only reads; ${route} is refused`);
    counted();
    const options = (params?.request ?? {}) as Record<string, unknown>;
    const answer = await octokit.request(route, {
      ...params,
      request: { ...options, redirect: 'manual' },
    });
    if (options.redirect !== 'manual' && REDIRECTS.has(answer.status))
      throw new Redirected(route, answer.status, String(answer.headers.location ?? ''));
    return answer;
  }) as unknown as ReadRequest;
  return read;
}

/** GitHub answered a read with a redirect (a transferred issue: 301 to its new place), not followed. */
export class Redirected extends Error {
  override name = 'Redirected';
  constructor(
    route: string,
    readonly status: number,
    /** Where GitHub sent the request: for a transferred issue, `…/repositories/<id>/issues/<number>`. */
    readonly location: string,
  ) {
    super(`GitHub answered ${route} with a redirect (${status}) to ${location || 'nowhere'}`);
  }
}
