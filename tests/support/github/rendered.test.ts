// The emulator renders bodies as GitHub does for `full+json`, hostile ones included: 64 KB of openers that
// never close render as the text they are, and an image after them is still found (the action's start waits
// for these renderings, so a pattern that rescans to the end from each opener held it seconds a comment).
import { describe, expect, it } from 'vitest';
import { renderHtml } from './rendered.js';
import type { Emu } from './state.js';

const emu = { api: 'http://emu.test', attachments: new Map(), options: {} } as unknown as Emu;
const KB64 = 64 * 1024;
const fill = (unit: string) => unit.repeat(Math.ceil(KB64 / unit.length)).slice(0, KB64);
const escaped = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

describe('renderHtml', () => {
  it.each(['<?', '<!a', '![', '<img ', '![](a', '![a](x "'])(
    'renders 64 KB of unclosed %s as its text',
    (unit) => {
      const text = fill(unit);
      expect(renderHtml(emu, text)).toBe(`<p dir="auto">${escaped(text).replace(/"/g, '&quot;')}</p>`);
    },
  );

  it('still finds an image, Markdown or HTML, after 64 KB of openers', () => {
    for (const opener of [fill('!['), fill('<img ')]) {
      const html = renderHtml(
        emu,
        `${opener} ![shot](https://x.test/a.png) <img src="https://x.test/b.png">`,
      );
      expect(html.match(/<img src="/g)).toHaveLength(2);
      expect(html).toContain('alt="shot"');
    }
  });
});
