// The scripted model server refuses image blocks the way the API does, so the fake is not kinder than it.
import jpeg from 'jpeg-js';
import { PNG } from 'pngjs';
import { describe, expect, it } from 'vitest';
import { webp } from '../webp.js';
import { findViolation } from './rules.js';

const pngData = (width: number, height: number) =>
  PNG.sync.write(new PNG({ width, height })).toString('base64');

const jpegData = (width: number, height: number) =>
  Buffer.from(
    jpeg.encode({ width, height, data: new Uint8Array(width * height * 4).fill(200) }, 80).data,
  ).toString('base64');
const webpData = async (width: number, height: number, lossless = false) =>
  (await webp(width, height, new Uint8Array(width * height * 4).fill(255), { lossless })).toString('base64');

const withImage = (source: Record<string, unknown>, inToolResult = false) => {
  const image = { type: 'image', source };
  const messages = inToolResult
    ? [
        { role: 'user', content: 'go' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'read_file', input: {} }] },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 't1', content: [{ type: 'text', text: 'x' }, image] },
          ],
        },
      ]
    : [{ role: 'user', content: [{ type: 'text', text: 'look' }, image] }];
  return {
    model: 'claude-sonnet-5-5',
    max_tokens: 100,
    tools: [{ name: 'read_file', input_schema: { type: 'object' } }],
    messages,
  };
};

describe('image blocks', () => {
  const png = pngData(20, 10);

  it('takes a PNG sent as PNG, in a message or a tool result', () => {
    expect(findViolation(withImage({ type: 'base64', media_type: 'image/png', data: png }))).toBeUndefined();
    expect(
      findViolation(withImage({ type: 'base64', media_type: 'image/png', data: png }, true)),
    ).toBeUndefined();
  });

  it('refuses a media type the API does not take, and bytes of another format than the one named', () => {
    expect(findViolation(withImage({ type: 'base64', media_type: 'image/svg+xml', data: png }))).toBe(
      "messages.0.content.1.image.source.base64.media_type: Input should be 'image/jpeg', 'image/png', 'image/gif' or 'image/webp'",
    );
    expect(findViolation(withImage({ type: 'base64', media_type: 'image/jpeg', data: png }, true))).toBe(
      'messages.2.content.0.tool_result.content.1.image.source.base64.data: Image does not match the provided media type image/jpeg',
    );
  });

  it('refuses data that is not base64, and more than 5 MB of it', () => {
    expect(findViolation(withImage({ type: 'base64', media_type: 'image/png', data: 'not base64!' }))).toBe(
      'messages.0.content.1.image.source.base64.data: Invalid base64 data',
    );
    const big = png + 'A'.repeat(5 * 1024 * 1024 - png.length + 4);
    expect(findViolation(withImage({ type: 'base64', media_type: 'image/png', data: big }))).toBe(
      `messages.0.content.1.image.source.base64: image exceeds 5 MB maximum: ${big.length} bytes > 5242880 bytes`,
    );
  });

  it('refuses an image larger than 8000 px on an edge', () => {
    expect(
      findViolation(withImage({ type: 'base64', media_type: 'image/png', data: pngData(8001, 1) })),
    ).toBe(
      'messages.0.content.1.image.source.base64.data: At least one of the image dimensions exceed max allowed size: 8000 pixels',
    );
  });

  it('measures JPEG and WebP too, and refuses one over 8000 px on an edge', async () => {
    const tooWide =
      'messages.0.content.1.image.source.base64.data: At least one of the image dimensions exceed max allowed size: 8000 pixels';
    const check = (media_type: string, data: string) =>
      findViolation(withImage({ type: 'base64', media_type, data }));
    expect(check('image/jpeg', jpegData(8000, 1))).toBeUndefined();
    expect(check('image/jpeg', jpegData(8001, 1))).toBe(tooWide);
    expect(check('image/jpeg', jpegData(1, 8001))).toBe(tooWide);
    expect(check('image/webp', await webpData(8000, 1))).toBeUndefined();
    expect(check('image/webp', await webpData(8001, 1))).toBe(tooWide);
    expect(check('image/webp', await webpData(1, 8001, true))).toBe(tooWide);
  });

  it('refuses bytes that start like an image but hold no size it can read', () => {
    const check = (media_type: string, bytes: number[]) =>
      findViolation(withImage({ type: 'base64', media_type, data: Buffer.from(bytes).toString('base64') }));
    expect(check('image/jpeg', [0xff, 0xd8, 0xff, 0xd9])).toBe('Could not process image');
    expect(check('image/webp', [...Buffer.from('RIFF\0\0\0\0WEBPVP8 ', 'latin1'), 0, 0])).toBe(
      'Could not process image',
    );
    expect(check('image/png', [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])).toBe(
      'Could not process image',
    );
  });

  const withImages = (count: number, last: string) => ({
    model: 'claude-sonnet-5-5',
    max_tokens: 100,
    messages: [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'look' },
          ...Array.from({ length: count }, (_, i) => ({
            type: 'image',
            source: { type: 'base64', media_type: 'image/png', data: i === count - 1 ? last : png },
          })),
        ],
      },
    ],
  });

  it('refuses more than 100 images in one request, counting those in tool results', () => {
    expect(findViolation(withImages(100, png))).toBeUndefined();
    expect(findViolation(withImages(101, png))).toBe('messages: too many images in one request: 101 > 100');
    const request = withImage({ type: 'base64', media_type: 'image/png', data: png }, true);
    const [, , answer] = request.messages;
    const result = (answer!.content as Array<{ content: unknown[] }>)[0]!;
    result.content.push(...Array.from({ length: 100 }, () => result.content[1]));
    expect(findViolation(request)).toBe('messages: too many images in one request: 101 > 100');
  });

  it('past 20 images in a request, refuses one over 2000 px on an edge', () => {
    const wide = pngData(2001, 1);
    expect(findViolation(withImages(20, wide))).toBeUndefined();
    expect(findViolation(withImages(21, wide))).toBe(
      'messages.0.content.21.image.source.base64.data: At least one of the image dimensions exceed max allowed size for many-image requests: 2000 pixels',
    );
  });

  it('past 20 images, holds a JPEG or a WebP to 2000 px as well', async () => {
    const manyTooWide =
      'messages.0.content.21.image.source.base64.data: At least one of the image dimensions exceed max allowed size for many-image requests: 2000 pixels';
    const withLast = (count: number, media_type: string, data: string) => {
      const request = withImages(count, png);
      const content = request.messages[0]!.content;
      content[content.length - 1] = { type: 'image', source: { type: 'base64', media_type, data } };
      return request;
    };
    expect(findViolation(withLast(20, 'image/jpeg', jpegData(2001, 2)))).toBeUndefined();
    expect(findViolation(withLast(21, 'image/jpeg', jpegData(2000, 2)))).toBeUndefined();
    expect(findViolation(withLast(21, 'image/jpeg', jpegData(2, 2001)))).toBe(manyTooWide);
    expect(findViolation(withLast(21, 'image/webp', await webpData(2001, 2)))).toBe(manyTooWide);
  });
});
