// An MCP tool's answer as the model is shown it (src/mcp/results.ts): text cut as bash output is, pictures
// through read_file's path, a line for every other block, and an error result thrown naming its server.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { MAX_RESULT_IMAGES, TOOL_OUTPUT_HINT, toolAnswer } from '../../src/mcp/results.js';
import { ToolError } from '../../src/agent/tools/types.js';
import { DEFAULT_OUTPUT_LIMIT } from '../../src/sandbox/commands/capped-output.js';
import { png } from '../support/pictures.js';

const answer = (content: CallToolResult['content'], more: Partial<CallToolResult> = {}) =>
  toolAnswer({ content, ...more }, 'notes');
const image = (bytes: Uint8Array, mimeType = 'image/png') => ({
  type: 'image' as const,
  data: Buffer.from(bytes).toString('base64'),
  mimeType,
});

describe('toolAnswer', () => {
  it('joins text blocks one to a line, and says what every block it cannot show was', async () => {
    const shown = await answer([
      { type: 'text', text: 'first' },
      { type: 'audio', data: Buffer.alloc(300).toString('base64'), mimeType: 'audio/wav' },
      { type: 'resource_link', name: 'spec', uri: 'file:///spec.md', description: 'the spec' },
      { type: 'resource', resource: { uri: 'file:///a.txt', text: 'inline text' } },
      { type: 'resource', resource: { uri: 'file:///b.bin', blob: Buffer.alloc(30).toString('base64') } },
    ]);
    expect(shown).toBe(
      [
        'first',
        '[audio (audio/wav, 300 bytes): not shown, the model takes no audio]',
        '[resource link: spec file:///spec.md (the spec)]',
        'inline text',
        '[resource file:///b.bin (binary, 30 bytes): not shown]',
      ].join('\n'),
    );
  });

  it('shows the structured content when there are no blocks, and nothing when there is neither', async () => {
    expect(await answer([], { structuredContent: { rows: 2 } })).toBe('{\n "rows": 2\n}');
    expect(await answer([])).toBe('');
  });

  it('cuts long text as bash output is cut, its marker saying how to see the rest', async () => {
    const shown = await answer([{ type: 'text', text: 'y'.repeat(DEFAULT_OUTPUT_LIMIT * 2) }]);
    if (typeof shown !== 'string') throw new Error('a picture in a text answer');
    expect(shown.length).toBeLessThan(DEFAULT_OUTPUT_LIMIT + 500);
    expect(shown).toContain(TOOL_OUTPUT_HINT);
  });

  it('throws an error result as a ToolError naming the server, with its text or a word that it has none', async () => {
    const failed = answer([{ type: 'text', text: 'no such table' }], { isError: true });
    await expect(failed).rejects.toBeInstanceOf(ToolError);
    await expect(failed).rejects.toThrow('the MCP server "notes" answered with an error: no such table');
    await expect(answer([], { isError: true })).rejects.toThrow('answered with an error: (no message)');
  });

  it('shows a picture as read_file does, by its bytes whatever its declared type', async () => {
    const shown = await answer([{ type: 'text', text: 'the page:' }, image(png(30, 20), 'image/jpeg')]);
    if (typeof shown === 'string') throw new Error(`no picture: ${shown}`);
    expect(shown.text).toBe('the page:\n[image 1: PNG image, 30×20 px (shown below)]');
    expect(shown.images).toEqual([
      expect.objectContaining({ mediaType: 'image/png', width: 30, height: 20 }),
    ]);
  });

  it('names the pictures it leaves out: bytes of no picture format, and those past the few a result shows', async () => {
    const many = Array.from({ length: MAX_RESULT_IMAGES + 1 }, () => image(png(4, 4)));
    const shown = await answer([image(Buffer.from('<svg/>'), 'image/svg+xml'), ...many]);
    if (typeof shown === 'string') throw new Error(`no picture: ${shown}`);
    expect(shown.images).toHaveLength(MAX_RESULT_IMAGES);
    const lines = shown.text.split('\n');
    expect(lines[0]).toBe('[image 1 (image/svg+xml): not shown, not a PNG, JPEG, GIF or WebP]');
    expect(lines.at(-1)).toBe(
      `[image ${MAX_RESULT_IMAGES + 1}: not shown, a result shows at most ${MAX_RESULT_IMAGES} pictures]`,
    );
  });
});
