// read_file of a picture: a PNG, JPEG, GIF or WebP in the workspace goes to the model as an image (scaled,
// within the API's limits), so it can look at a screenshot its own command made.
import { open, stat } from 'node:fs/promises';
import type { z } from 'zod';
import { fitImage, imageMagic, MAX_EDGE, type FittedImage, type ImageMediaType } from '../../images/fit.js';
import { formatCount } from '../../sandbox/commands/capped-output.js';
import { toolFile } from '../workspace.js';
import { ToolError, type Tool, type ToolAnswer, type ToolContext } from './types.js';

/** A larger image file is not read at all (the same cap as a download from the thread). */
export const MAX_IMAGE_FILE_BYTES = 10 * 1024 * 1024;
const MAGIC_BYTES = 12;

type PathInput = z.ZodType<{ path: string }>;

/**
 * read_file that shows pictures: a file that starts like an image is answered with it; any other file, and
 * every failure to find one, goes to the text reader as before.
 */
export function withImages<Schema extends PathInput>(readFile: Tool<Schema>): Tool<Schema, ToolAnswer> {
  return {
    ...readFile,
    description:
      `${readFile.description} Images are the exception to binary files: a PNG, JPEG, GIF or WebP is shown to ` +
      `you as a picture (scaled to at most ${formatCount(MAX_EDGE)} px on its long edge), to look at a screenshot.`,
    async run(input, context) {
      return (await imageAt(input.path, context)) ?? (await readFile.run(input, context));
    },
  };
}

async function imageAt(requested: string, context: ToolContext): Promise<ToolAnswer | undefined> {
  let file: string;
  try {
    file = await toolFile(context, requested, { mustExist: true });
  } catch {
    return undefined; // the text reader gives the same refusal, in its words
  }
  const info = await stat(file).catch(() => undefined);
  if (!info?.isFile() || info.size === 0) return undefined;
  return await readImageFile(file, requested, info.size, context.signal);
}

/** The image's answer when the file starts like one of the four formats; undefined for any other file. */
export async function readImageFile(
  file: string,
  shownPath: string,
  size: number,
  signal?: AbortSignal,
): Promise<ToolAnswer | undefined> {
  const handle = await open(file, 'r');
  try {
    const head = Buffer.alloc(MAGIC_BYTES);
    const { bytesRead } = await handle.read(head, 0, MAGIC_BYTES, 0);
    const magic = imageMagic(head.subarray(0, bytesRead));
    if (!magic) return undefined;
    if (size > MAX_IMAGE_FILE_BYTES)
      throw new ToolError(
        `${shownPath} is an image of ${formatCount(size)} bytes, over the 10 MB that read_file shows`,
      );
    const bytes = Buffer.alloc(size);
    await handle.read(bytes, 0, size, 0);
    const fit = await fitImage(bytes, signal);
    if ('skipped' in fit) throw new ToolError(`${shownPath} cannot be shown: ${fit.skipped}`);
    return { text: describeImage(shownPath, fit.image, magic), images: [fit.image] };
  } finally {
    await handle.close();
  }
}

const formatName = (mediaType: ImageMediaType) => mediaType.slice('image/'.length).toUpperCase();

/** What the file is, and how it is shown when scaled (a WebP or GIF is shown as a PNG or JPEG then). */
export function describeImage(shownPath: string, image: FittedImage, file: ImageMediaType): string {
  if (!image.scaledFrom)
    return `${shownPath}: ${formatName(file)} image, ${image.width}×${image.height} px (shown below)`;
  const { width, height } = image.scaledFrom;
  const as = image.mediaType === file ? '' : ` as a ${formatName(image.mediaType)}`;
  return `${shownPath}: ${formatName(file)} image, ${width}×${height} px, scaled to ${image.width}×${image.height} px${as} (shown below)`;
}
