// The pictures a thread shows: the signed URLs that GitHub's rendered HTML (`body_html`, media type
// `full+json`) gives each attachment, downloaded without the token, from GitHub's own hosts only.

/** GitHub's image hosts, besides the server itself (which serves user-attachments, and on GHES everything). */
const IMAGE_HOSTS = new Set([
  'private-user-images.githubusercontent.com',
  'user-images.githubusercontent.com',
]);
/** A download that grows past this is stopped: no picture worth reading is this large. */
export const MAX_DOWNLOAD_BYTES = 10 * 1024 * 1024;
/** A download still going after this is given up: a stalled host must not hold the run's start. */
export const DOWNLOAD_TIMEOUT_MS = 30_000;
const MAX_REDIRECTS = 3;
/** An `<img>`'s src. A tag holds no `<` (GitHub escapes one in a value), so a failed scan ends at the next tag. */
const IMG_SRC = /<img\b[^<>]*?\ssrc\s*=\s*(?:"([^"]*)"|'([^']*)')/gi;
const ENTITY = /&(amp|quot|#39|lt|gt);/g;
const ENTITIES: Record<string, string> = { amp: '&', quot: '"', '#39': "'", lt: '<', gt: '>' };

/** The `src` of every `<img>` in rendered HTML, in order, each once. */
export function imageSources(html: string): string[] {
  const found = [...html.matchAll(IMG_SRC)].map((m) =>
    (m[1] ?? m[2] ?? '').replace(ENTITY, (_, e: string) => ENTITIES[e]!),
  );
  return [...new Set(found.filter((src) => src !== ''))];
}

/** Whether the action may fetch this URL: on the server's own host or GitHub's image hosts, over http(s). */
export function mayFetch(url: string, serverUrl: string): boolean {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  const server = new URL(serverUrl);
  if (parsed.username || parsed.password) return false;
  if (parsed.host === server.host) return parsed.protocol === server.protocol;
  return parsed.protocol === 'https:' && IMAGE_HOSTS.has(parsed.hostname) && parsed.port === '';
}

export type Download = { bytes: Uint8Array } | { failed: string };

/**
 * The bytes at `url`, fetched without any credential. A redirect is followed only onto an allowed host, and
 * a download is stopped as soon as it passes `maxBytes`, or when it is still going after `timeoutMs`.
 */
export async function download(
  url: string,
  serverUrl: string,
  {
    signal: outer,
    maxBytes = MAX_DOWNLOAD_BYTES,
    timeoutMs = DOWNLOAD_TIMEOUT_MS,
  }: { signal?: AbortSignal; maxBytes?: number; timeoutMs?: number } = {},
): Promise<Download> {
  const timeout = AbortSignal.timeout(timeoutMs);
  const signal = outer ? AbortSignal.any([outer, timeout]) : timeout;
  try {
    return await fetchCapped(url, serverUrl, signal, maxBytes);
  } catch (error) {
    if (timeout.aborted && !outer?.aborted) return { failed: `no answer within ${timeoutMs / 1000} s` };
    throw error;
  }
}

async function fetchCapped(
  url: string,
  serverUrl: string,
  signal: AbortSignal,
  maxBytes: number,
): Promise<Download> {
  const response = await fetchFollowing(url, {
    signal,
    accept: 'image/*',
    refused: (at, hop) =>
      mayFetch(at, serverUrl) ? undefined : hop === 0 ? 'not on a GitHub host' : 'redirected off GitHub',
  });
  if ('failed' in response) return response;
  if (response.status !== 200) {
    await response.body?.cancel();
    return { failed: `HTTP ${response.status}` };
  }
  return await readCapped(response, maxBytes);
}

/**
 * The answer at `url`, its body unread, once redirects are followed by hand: every URL on the way is first
 * put to `refused` (a reason to stop, or undefined), and no request carries a credential.
 */
export async function fetchFollowing(
  url: string,
  {
    refused,
    signal,
    accept,
  }: {
    refused: (url: string, hop: number) => string | undefined;
    signal: AbortSignal;
    accept?: string;
  },
): Promise<Response | { failed: string }> {
  let at = url;
  for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
    const why = refused(at, hop);
    if (why) return { failed: why };
    const response = await fetch(at, {
      redirect: 'manual',
      ...(accept ? { headers: { accept } } : {}),
      signal,
    });
    if (response.status < 300 || response.status >= 400) return response;
    await response.body?.cancel();
    const location = response.headers.get('location');
    if (!location) return { failed: `HTTP ${response.status} without a location` };
    at = new URL(location, at).href;
  }
  return { failed: 'too many redirects' };
}

async function readCapped(response: Response, maxBytes: number): Promise<Download> {
  const tooLarge = { failed: `larger than ${Math.round(maxBytes / (1024 * 1024))} MB` };
  if (Number(response.headers.get('content-length') ?? 0) > maxBytes) {
    await response.body?.cancel();
    return tooLarge;
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = response.body?.getReader();
  if (!reader) return { bytes: new Uint8Array() };
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.length;
    if (size > maxBytes) {
      await reader.cancel();
      return tooLarge;
    }
    chunks.push(value);
  }
  return { bytes: Buffer.concat(chunks) };
}
