// Bodies as GitHub renders them for media type `full+json` (body_html, body_text beside body): enough of
// GitHub's Markdown for what the action reads of it — paragraphs, images (uploads signed, others through
// camo) and inline HTML images — with HTML comments gone, as GitHub drops them.
import { renderedImageUrl } from './attachments.js';
import { documentedMediaTypes } from './openapi.js';
import type { Request } from './replies.js';
import type { Emu } from './state.js';

const escapeHtml = (text: string) =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/**
 * An image, `![alt](url "title")`, and an `<img>` tag. Linear: no part of either runs over the character
 * that opens the next one (`[`, `]` or `(`; `<`), so a failed match stops there and a thread of 64 KB of
 * unclosed `![` costs the emulator milliseconds, not seconds a comment (which held the action's start).
 */
const MARKDOWN_IMAGE = /!\[([^[\]\n]*)\]\(\s*<?([^\s()<>[\]]+)>?(?:\s+"[^"\n]*")?\s*\)/g;
const HTML_IMAGE = /<img\b[^<>]*?\ssrc\s*=\s*"([^"<]*)"[^<>]*>/gi;

function imageHtml(emu: Emu, url: string, alt: string): string {
  const src = escapeHtml(renderedImageUrl(emu, url));
  return `<a target="_blank" rel="noopener noreferrer" href="${src}"><img src="${src}" alt="${escapeHtml(alt)}" style="max-width: 100%;"></a>`;
}

export function renderHtml(emu: Emu, markdown: string): string {
  const text = markdown.replace(/<!--[\s\S]*?(?:-->|$)/g, '').replace(/\r\n/g, '\n');
  const paragraphs = text.split(/\n{2,}/).filter((p) => p.trim() !== '');
  return paragraphs
    .map((paragraph) => {
      const images: string[] = [];
      const hold = (html: string) => `@@img${images.push(html) - 1}@@`;
      const marked = paragraph
        .replace(MARKDOWN_IMAGE, (_, alt: string, url: string) => hold(imageHtml(emu, url, alt)))
        .replace(HTML_IMAGE, (_, url: string) => hold(imageHtml(emu, url, '')));
      const html = escapeHtml(marked)
        .replace(/\n/g, '<br>\n')
        .replace(/@@img(\d+)@@/g, (_, i: string) => images[Number(i)] ?? '');
      return `<p dir="auto">${html}</p>`;
    })
    .join('\n');
}

/**
 * The media type's extra fields for a body: body_html and body_text for `full`, body_html for `html`,
 * body_text for `text`, only when the Accept header names a custom media type the operation documents.
 * GitHub documents `vnd.github.*` for issues and issue comments but `vnd.github-commitcomment.*` for pull
 * request reviews and review comments (https://docs.github.com/rest/pulls/reviews#list-reviews-for-a-pull-request,
 * the same list in the OpenAPI description the emulator checks against): asked with a type the operation does
 * not document, the emulator answers the raw body alone. The `vnd.github` family may carry the API version
 * (`vnd.github.v3.full+json`, what Octokit's `mediaType.format` sends), as GitHub's media types page shows.
 */
export function renderedFields(
  emu: Emu,
  request: Pick<Request, 'headers' | 'match'>,
  body: string,
): Record<string, string> {
  const documented = documentedMediaTypes(request.match.operationId);
  const asked = String(request.headers.accept ?? '')
    .split(',')
    .map((type) =>
      type
        .trim()
        .toLowerCase()
        .replace(/^application\/vnd\.github\.v3\./, 'application/vnd.github.'),
    )
    .find((type) => documented.includes(type));
  const format = asked && /\.(full|html|text|raw)\+json$/.exec(asked)?.[1];
  if (format === 'full') return { body_html: renderHtml(emu, body), body_text: body };
  if (format === 'html') return { body_html: renderHtml(emu, body) };
  if (format === 'text') return { body_text: body };
  return {};
}
