// The scripted model server refuses image blocks the way the API does, so the fake is not kinder than it.
import { PNG } from 'pngjs';
import { describe, expect, it } from 'vitest';
import { findViolation } from './rules.js';

const pngData = (width: number, height: number) =>
  PNG.sync.write(new PNG({ width, height })).toString('base64');

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
});
