// What GitHub would show: each helper's Markdown rendered by a real renderer (marked, GitHub-flavoured), then
// read back as the text a reader sees. Escaping must make hostile text render as itself; our own sentences
// render once, their `code` as code and never a backslash escape.
import { describe, expect, it } from 'vitest';
import { marked } from 'marked';
import fc from 'fast-check';
import { codeSpan, escapeMarkdown, markdownSentence } from '../../src/text/markdown.js';
import { refusedWorkBlock } from '../../src/github/checklist/kept-patch.js';
import { workflowRule } from '../../src/delivery/messages/refusal.js';

const ENTITIES: Record<string, string> = {
  '&amp;': '&',
  '&lt;': '<',
  '&gt;': '>',
  '&quot;': '"',
  '&#39;': "'",
};

/** The HTML of one line of Markdown. */
const html = (markdown: string) => marked.parseInline(markdown, { gfm: true, async: false });

/** What a reader sees: the rendered HTML's text, with the zero-width characters the escaping adds taken out. */
function seen(markdown: string): string {
  return html(markdown)
    .replace(/<[^>]*>/g, '')
    .replace(/&(?:amp|lt|gt|quot|#39);/g, (entity) => ENTITIES[entity]!)
    .replace(/[\u200b\u200d]/g, '');
}

/** The characters that bite: code, emphasis, tables, HTML, links, images, mentions, autolinks. */
const BITING =
  'a `b` c_d_ e*f* | g <b>h</b> [i](https://x.test) ![j](k) @l https://m.test www.n.test ~o~ \\p';

describe('escapeMarkdown', () => {
  it('renders the characters that bite as themselves, with no element made of them', () => {
    const out = escapeMarkdown(BITING);
    expect(seen(out)).toBe(BITING);
    expect(html(out)).not.toMatch(/<(?:code|em|strong|a|img|b|del)\b/);
  });

  it('renders any one line as itself', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom(...'ab `*_|<>[]()!@:/#~\\&.w'.split('')) }), (text) => {
        const line = text.replace(/\s+/g, ' ').trim();
        expect(seen(escapeMarkdown(line))).toBe(line);
      }),
    );
  });
});

describe('markdownSentence', () => {
  it('renders our backticks as code and the rest as text, each once', () => {
    const out = markdownSentence(
      'give `github_token` a token with Workflows: write, or leave `.github/workflows/` out',
    );
    expect(html(out)).toBe(
      'give <code>github_token</code> a token with Workflows: write, or leave <code>.github/workflows/</code> out',
    );
    expect(out).not.toContain('\\`');
    expect(out).not.toContain('\\_');
  });

  it('escapes what stands outside the code, and keeps HTML out of code spans', () => {
    const out = markdownSentence('a_b_ `x` <b>y</b> | [z](https://w.test) `</code><b>w` `a-->b` @someone');
    expect(seen(out)).toBe('a_b_ x <b>y</b> | [z](https://w.test) `</code><b>w` `a-->b` @someone');
    expect(html(out)).not.toMatch(/<(?:em|a|b)\b/);
    // No comment end can come through: the checklist's state rides in an HTML comment.
    expect(out).not.toContain('-->');
    expect(html(out)).toContain('<code>x</code>');
  });

  it('keeps an unpaired backtick as text', () => {
    expect(seen(markdownSentence('one ` alone'))).toBe('one ` alone');
  });

  it('matches codeSpan for a whole code sentence', () => {
    expect(markdownSentence('`a`')).toBe(codeSpan('a'));
  });
});

describe('a refusal as the comment shows it', () => {
  it('shows the rule and the advice rendered once', () => {
    const refusal = workflowRule(['.github/workflows/ci_main.yml']);
    const block = refusedWorkBlock({ rule: refusal.rule, advice: refusal.advice });
    const shown = seen(block);
    expect(shown).toContain('.github/workflows/ci_main.yml');
    expect(shown).toContain('give github_token a token');
    expect(shown).not.toMatch(/\\[`_]/);
  });
});
