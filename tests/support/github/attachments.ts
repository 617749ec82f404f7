// Pictures in the thread as GitHub keeps them: an upload is `<server>/user-attachments/assets/<uuid>` in
// the Markdown, which answers 404 without a browser session; the rendered HTML (`full+json`) carries a
// short-lived signed URL (`?jwt=…`) that downloads without a token. Images on other hosts are rendered
// through camo. Here the server plays the signed host too, as GitHub Enterprise Server does.
import { createHmac, randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Emu } from './state.js';

export const ATTACHMENT_PATH = '/user-attachments/assets/';
export const SIGNED_PATH = '/private-user-images/';
const KEY = 'emulator-signing-key';
const CAMO = 'https://camo.githubusercontent.com';

export interface AttachmentState {
  uuid: string;
  bytes: Uint8Array;
  contentType: string;
}

/** A raw answer: bytes with their content type (not JSON), or a redirect. */
export interface RawReply {
  status: number;
  headers?: Record<string, string>;
  bytes?: Uint8Array | string;
}

/** Stores an upload and returns the URL its Markdown uses. */
export function addAttachment(emu: Emu, bytes: Uint8Array, contentType = 'image/png'): string {
  const uuid = randomUUID();
  emu.attachments.set(uuid, { uuid, bytes, contentType });
  return `${emu.api}${ATTACHMENT_PATH}${uuid}`;
}

const signature = (what: string, expires: number) =>
  createHmac('sha256', KEY).update(`${what}:${expires}`).digest('base64url');

/** A signed URL on the server, valid for five minutes, as a `?jwt=` parameter carries it on GitHub. */
export function signedUrl(emu: Emu, path: string): string {
  const expires = Math.floor(Date.now() / 1000) + 300;
  const jwt = `${Buffer.from(JSON.stringify({ exp: expires })).toString('base64url')}.${signature(path, expires)}`;
  return `${emu.api}${path}?jwt=${jwt}`;
}

function validSignature(path: string, jwt: string | null): boolean {
  const [claims, sig] = (jwt ?? '').split('.');
  try {
    const { exp } = JSON.parse(Buffer.from(claims ?? '', 'base64url').toString()) as { exp: number };
    return exp > Date.now() / 1000 && sig === signature(path, exp);
  } catch {
    return false;
  }
}

/** What `src` an `<img>` of the rendered HTML gets for a URL written in Markdown. */
export function renderedImageUrl(emu: Emu, url: string): string {
  if (url.startsWith(`${emu.api}${ATTACHMENT_PATH}`)) {
    const uuid = url.slice(`${emu.api}${ATTACHMENT_PATH}`.length);
    if (emu.attachments.has(uuid)) return signedUrl(emu, `${SIGNED_PATH}${uuid}`);
  }
  const camo = emu.options.camoUrl ?? CAMO;
  return `${camo}/${createHmac('sha1', KEY).update(url).digest('hex')}/${Buffer.from(url).toString('hex')}`;
}

/**
 * Answers the signed downloads (outside the REST API, so outside its OpenAPI check): a token presented to
 * one is a violation, as it would be a leak to a storage host on GitHub. Undefined for any other path.
 */
export function signedDownload(emu: Emu, req: IncomingMessage, url: URL): RawReply | undefined {
  const isAttachment = url.pathname.startsWith(ATTACHMENT_PATH);
  const isSigned = url.pathname.startsWith(SIGNED_PATH) || url.pathname.startsWith(LOG_PATH);
  if (!isAttachment && !isSigned) return undefined;
  if (req.headers.authorization) emu.violations.push(`credentials sent to a download URL: ${url.pathname}`);
  // Without a browser session, an upload's own URL is not found (a private repository's).
  if (isAttachment) return { status: 404, bytes: 'Not Found', headers: { 'content-type': 'text/plain' } };
  if (!validSignature(url.pathname, url.searchParams.get('jwt')))
    return { status: 403, bytes: 'Signature invalid or expired', headers: { 'content-type': 'text/plain' } };
  if (url.pathname.startsWith(LOG_PATH)) {
    const log = emu.jobLogs.get(Number(url.pathname.slice(LOG_PATH.length)));
    if (log === undefined)
      return { status: 404, bytes: 'Not Found', headers: { 'content-type': 'text/plain' } };
    return { status: 200, bytes: log, headers: { 'content-type': 'text/plain; charset=utf-8' } };
  }
  const attachment = emu.attachments.get(url.pathname.slice(SIGNED_PATH.length));
  if (!attachment) return { status: 404, bytes: 'Not Found', headers: { 'content-type': 'text/plain' } };
  return { status: 200, bytes: attachment.bytes, headers: { 'content-type': attachment.contentType } };
}

/** Where a job's log is downloaded from, once the API's redirect points there. */
export const LOG_PATH = '/job-logs/';
