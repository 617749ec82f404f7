// What an MCP tool call answered, as the model is shown it: text cut as bash output is (the same limit and
// marker, redacted across its cuts), pictures through the path read_file's take (the format by its bytes,
// scaled, size-checked), and for everything else a line that says what it was and that it is not shown.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { fitImage, imageMagic, type FittedImage } from '../images/fit.js';
import { describeImage, MAX_IMAGE_FILE_BYTES } from '../agent/tools/image-file.js';
import { ToolError, type ToolAnswer } from '../agent/tools/types.js';
import {
  CappedOutput,
  DEFAULT_OUTPUT_LIMIT,
  formatCount,
  type Redaction,
} from '../sandbox/commands/capped-output.js';

/** Pictures one result may show; more are named and left out (the history holds at most 80 in all). */
export const MAX_RESULT_IMAGES = 8;

/** What to do when a tool's text was cut: the marker's last words. */
export const TOOL_OUTPUT_HINT =
  'to see the rest, call the tool again asking for less (narrower arguments, one page)';

type Block = CallToolResult['content'][number];

/** The tool's answer for the model; a result the server marked as an error throws, naming the server. */
export async function toolAnswer(
  result: CallToolResult,
  server: string,
  redaction?: Redaction,
): Promise<ToolAnswer> {
  const text = new CappedOutput(DEFAULT_OUTPUT_LIMIT, redaction, TOOL_OUTPUT_HINT);
  const images: FittedImage[] = [];
  let pieces = 0;
  const write = (piece: string): void => {
    text.write(pieces++ > 0 ? `\n${piece}` : piece);
  };
  for (const block of result.content ?? []) {
    if (block.type === 'image') write(await picture(block, images));
    else write(describe(block));
  }
  if (pieces === 0 && result.structuredContent !== undefined)
    write(JSON.stringify(result.structuredContent, null, 1));
  text.end();
  const output = text.toString();
  if (result.isError)
    throw new ToolError(`the MCP server "${server}" answered with an error: ${output || '(no message)'}`);
  return images.length > 0 ? { text: output, images } : output;
}

/** A block that is not a picture, as text. */
function describe(block: Block): string {
  switch (block.type) {
    case 'text':
      return block.text;
    case 'audio':
      return `[audio (${block.mimeType}, ${formatCount(base64Bytes(block.data))} bytes): not shown, the model takes no audio]`;
    case 'resource_link':
      return `[resource link: ${block.name} ${block.uri}${block.description ? ` (${block.description})` : ''}]`;
    case 'resource': {
      const { resource } = block;
      if ('text' in resource && typeof resource.text === 'string') return resource.text;
      const blob = 'blob' in resource && typeof resource.blob === 'string' ? resource.blob : '';
      return `[resource ${resource.uri} (${resource.mimeType ?? 'binary'}, ${formatCount(base64Bytes(blob))} bytes): not shown]`;
    }
    default:
      return `[a ${String((block as { type?: unknown }).type)} block: not shown]`;
  }
}

/** A picture, fitted for the model and added to `images`; the line that stands for it in the text. */
async function picture(block: Extract<Block, { type: 'image' }>, images: FittedImage[]): Promise<string> {
  const number = images.length + 1;
  const bytes = Buffer.from(block.data, 'base64');
  const what = `image ${number}`;
  const magic = imageMagic(bytes.subarray(0, 12));
  if (!magic) return `[${what} (${block.mimeType}): not shown, not a PNG, JPEG, GIF or WebP]`;
  if (images.length >= MAX_RESULT_IMAGES)
    return `[${what}: not shown, a result shows at most ${MAX_RESULT_IMAGES} pictures]`;
  if (bytes.length > MAX_IMAGE_FILE_BYTES)
    return `[${what}: not shown, ${formatCount(bytes.length)} bytes is over the 10 MB a picture may have]`;
  const fit = await fitImage(bytes);
  if ('skipped' in fit) return `[${what}: not shown, ${fit.skipped}]`;
  images.push(fit.image);
  return `[${describeImage(what, fit.image, magic)}]`;
}

function base64Bytes(data: string): number {
  return Math.floor((data.replace(/=+$/, '').length * 3) / 4);
}
