// read_file of a picture: the file's own format and size, and how it is shown when it had to be scaled (a
// large WebP goes to the model as a PNG, decoded by libwebp).
import { writeFile } from 'node:fs/promises';
import { PNG } from 'pngjs';
import { describe, expect, it } from 'vitest';
import { withImages } from '../../../src/agent/tools/image-file.js';
import { readFileTool } from '../../../src/agent/tools/read-file.js';
import type { ToolAnswer } from '../../../src/agent/tools/types.js';
import { fx, inWs, toolError, useFileToolWorkspace } from '../../support/file-tools.js';
import { webp } from '../../support/webp.js';

useFileToolWorkspace();

const readImage = async (path: string) =>
  (await withImages(readFileTool).run({ path }, fx.context)) as Exclude<ToolAnswer, string>;

describe('read_file of an image', () => {
  it('shows a large WebP scaled to 1,568 px as a PNG, and says what the file is', async () => {
    const pixels = new Uint8Array(3000 * 1500 * 4).fill(200);
    await writeFile(inWs('shot.webp'), await webp(3000, 1500, pixels));
    const answer = await readImage('shot.webp');
    expect(answer.text).toBe(
      'shot.webp: WEBP image, 3000×1500 px, scaled to 1568×784 px as a PNG (shown below)',
    );
    const [image] = answer.images ?? [];
    expect(image?.mediaType).toBe('image/png');
    expect(PNG.sync.read(Buffer.from(image!.data, 'base64')).height).toBe(784);
  });

  it('shows a small one as it is, and refuses a damaged one with the reason', async () => {
    await writeFile(inWs('small.webp'), await webp(30, 20, new Uint8Array(30 * 20 * 4).fill(9)));
    expect((await readImage('small.webp')).text).toBe('small.webp: WEBP image, 30×20 px (shown below)');
    const whole = await webp(2000, 100, new Uint8Array(2000 * 100 * 4).fill(9), { lossless: true });
    await writeFile(inWs('cut.webp'), whole.subarray(0, 40));
    const refused = withImages(readFileTool).run({ path: 'cut.webp' }, fx.context);
    expect(await toolError(refused.then(() => 'shown'))).toBe(
      'cut.webp cannot be shown: an animated or damaged WebP image',
    );
  });
});
