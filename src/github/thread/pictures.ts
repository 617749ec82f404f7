// The thread's pictures for the first message: the trigger's own first, then the comments newest first,
// then the description; at most 20 tried, shown or not. Each is downloaded from GitHub's hosts only and made
// fit for the model; one that is not becomes a line saying why, never a failure of the run.
import { fitImage, type FittedImage } from '../../images/fit.js';
import type { IssueComment } from '../api/issues.js';
import type { Permission } from '../api/access.js';
import { download, imageSources, mayFetch } from './attachments.js';
import { humanComments } from './issue-context.js';
import { errorMessage } from '../../text/error-sentence.js';

/**
 * The most pictures one run fetches and tries to show the model. One that fails counts as well: a thread of
 * broken or hostile pictures costs no more downloads and decodes than one of good ones.
 */
export const MAX_PICTURES = 20;
/**
 * The time all the thread's pictures may take to be made fit, on the clock. Ours: each decode has limits of its
 * own (src/images/decoder.ts), and the run's start waits for the pictures; past this, the rest are skipped.
 */
export const PICTURES_TIME_MS = 60_000;
/**
 * The most picture data (base64 characters) one run shows from the thread. Ours: the first message is never
 * cleared, and the API takes at most 32 MB a request (its request size limits), so the thread's pictures keep
 * well under the 16 MB at which the agent clears the pictures its tools showed.
 */
export const MAX_PICTURE_BYTES = 12 * 1000 * 1000;
/** Lines for pictures not shown stop here: a thread of a hundred external badges is not worth listing. */
const MAX_SKIPPED = 10;
const WRITERS: readonly Permission[] = ['admin', 'write'];

export interface PictureSource {
  /** Where the pictures are: "the trigger comment by @alice". */
  label: string;
  html: string;
}

export interface Picture {
  label: string;
  image?: FittedImage;
  skipped?: string;
}

/** Where pictures are looked for, in the order they are shown. */
export function pictureSources(thread: {
  trigger?: IssueComment | undefined;
  /** The conversation's comments, review comments and submitted reviews before the trigger, in any order. */
  comments: readonly IssueComment[];
  description: { html: string; author: string; kind: string };
  permissions: ReadonlyMap<string, Permission>;
}): PictureSource[] {
  const who = (login: string) =>
    `@${login}${WRITERS.includes(thread.permissions.get(login) ?? 'none') ? '' : ' (no write access)'}`;
  const comment = (c: IssueComment, what: string): PictureSource => ({
    label: `${what} by ${who(c.user)} on ${c.createdAt.slice(0, 10)}`,
    html: c.bodyHtml ?? '',
  });
  const trigger = thread.trigger;
  return [
    ...(trigger ? [comment(trigger, 'state' in trigger ? 'the trigger review' : 'the trigger comment')] : []),
    ...humanComments(thread.comments)
      .filter((c) => c !== trigger)
      .sort((a, b) => b.createdAt.localeCompare(a.createdAt) || b.id - a.id)
      .map((c) => comment(c, kindOf(c))),
    {
      label: `the ${thread.description.kind} description by ${who(thread.description.author)}`,
      html: thread.description.html,
    },
  ];
}

/** What a comment is, for its label: review comments say their file, submitted reviews are reviews. */
function kindOf(comment: IssueComment): string {
  if ('path' in comment) return `a review comment on ${String(comment.path)}`;
  return 'state' in comment ? 'a review' : 'a comment';
}

/**
 * Downloads under way at once. Ours: a thread's pictures come from one or two GitHub hosts, and a few at a
 * time keep the run's start short without many requests to the same host at once.
 */
export const PARALLEL_DOWNLOADS = 4;

type Got = { bytes: Uint8Array; skipped?: undefined } | { bytes?: undefined; skipped: string };

/**
 * The thread's pictures in the order of `sources`, as the serial reading of them would give: downloads run
 * up to `parallel` at a time ahead of the one being made fit (each with its own stall timeout), but never more
 * than could still be tried, so no more is fetched than one at a time would fetch. Pictures are made fit one
 * at a time, in order, so only one is ever decoded, and all of them within `timeMs`.
 */
export async function threadPictures(
  sources: readonly PictureSource[],
  serverUrl: string,
  {
    signal,
    max = MAX_PICTURES,
    maxBytes = MAX_PICTURE_BYTES,
    parallel = PARALLEL_DOWNLOADS,
    timeoutMs,
    timeMs = PICTURES_TIME_MS,
  }: {
    signal?: AbortSignal;
    max?: number;
    maxBytes?: number;
    parallel?: number;
    timeoutMs?: number;
    timeMs?: number;
  } = {},
): Promise<Picture[]> {
  const found = sources.flatMap(({ label, html }) =>
    imageSources(html).map((url) => ({ label, url, allowed: mayFetch(url, serverUrl) })),
  );
  const wanted = found.filter((f) => f.allowed);
  const options = { ...(signal ? { signal } : {}), ...(timeoutMs === undefined ? {} : { timeoutMs }) };
  const started: Array<Promise<Got>> = [];
  let used = 0;
  const pictures: Picture[] = [];
  let tried = 0;
  let bytes = 0;
  let skipped = 0;
  let over = 0;
  const startMore = () => {
    // Each download started and not yet used will be tried: the window stops where `max` would.
    while (
      started.length < wanted.length &&
      started.length - used < parallel &&
      tried + (started.length - used) < max
    )
      started.push(fetchBytes(wanted[started.length]!.url, serverUrl, options));
  };
  const clock = new AbortController();
  const timer = setTimeout(
    () => clock.abort(new Error(`the thread's pictures took over ${timeMs / 1000} s`)),
    timeMs,
  );
  const outOfTime = signal ? AbortSignal.any([signal, clock.signal]) : clock.signal;
  const skip = (label: string, why: string) => {
    if (skipped++ < MAX_SKIPPED) pictures.push({ label, skipped: why });
  };
  try {
    for (const { label, allowed } of found) {
      if (!allowed) {
        skip(label, 'on a host other than GitHub, so not fetched');
        continue;
      }
      if (tried === max) {
        over++;
        continue;
      }
      startMore();
      tried++;
      const picture = await fitted(await started[used++]!, outOfTime);
      if (picture.image && bytes + picture.image.data.length > maxBytes) {
        skip(label, `over the ${formatBytes(maxBytes)} of pictures a run shows`);
      } else if (picture.image) {
        bytes += picture.image.data.length;
        pictures.push({ label, image: picture.image });
      } else skip(label, picture.skipped);
    }
  } finally {
    clearTimeout(timer);
  }
  if (over > 0)
    pictures.push({ label: `${over} more picture(s)`, skipped: `over the limit of ${max} a run` });
  return pictures;
}

/** The bytes at `url`, or why not; never a rejection (it may be waited for after others). */
async function fetchBytes(
  url: string,
  serverUrl: string,
  options: { signal?: AbortSignal; timeoutMs?: number },
): Promise<Got> {
  try {
    const got = await download(url, serverUrl, options);
    return 'failed' in got ? { skipped: `download failed (${got.failed})` } : { bytes: got.bytes };
  } catch (error) {
    return { skipped: `download failed (${errorMessage(error)})` };
  }
}

async function fitted(
  got: Got,
  signal: AbortSignal,
): Promise<{ image: FittedImage; skipped?: undefined } | { image?: undefined; skipped: string }> {
  if (!got.bytes) return { skipped: got.skipped };
  try {
    const fit = await fitImage(got.bytes, signal);
    return 'image' in fit ? { image: fit.image } : { skipped: fit.skipped };
  } catch (error) {
    return { skipped: `not readable (${errorMessage(error)})` };
  }
}

const formatBytes = (bytes: number) =>
  bytes >= 1_000_000 ? `${Math.round(bytes / 1_000_000)} MB` : `${bytes} bytes`;
