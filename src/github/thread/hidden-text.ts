// Issue text as a reader sees it: what GitHub's rendering hides from a person is taken out before a model
// reads it, so that nothing can speak to the model behind the maintainer's back.
import { stripInvisible } from '../../text/invisible.js';

/** `&#60;` and `&#x3C;` (semicolon optional, as browsers read them) become the characters they stand for. */
const NUMERIC_ENTITY = /&#(?:[xX]([0-9a-fA-F]{1,6})|([0-9]{1,7}));?/g;

/** HTML comments, an unclosed one running to the end (GitHub hides the rest of the text then too). */
const HTML_COMMENT = /<!--[\s\S]*?(?:-->|$)/g;

/** The Markdown "comment" idiom, a link definition nobody links to: `[//]: # (hidden)`, `[x]: <> (hidden)`. */
const MARKDOWN_COMMENT = /^ {0,3}\[[^\]\n]*\]:[ \t]*(?:#|<>)(?:[ \t].*)?$/gm;

/**
 * A processing instruction `<?…?>`, a declaration `<!DOCTYPE …>` and a CDATA section: GitHub shows none. The
 * first two are hidden only when closed; `closedOnly` keeps their scan linear.
 */
const PROCESSING_INSTRUCTION = /<\?[\s\S]*?\?>/g;
const CDATA = /<!\[CDATA\[[\s\S]*?(?:\]\]>|$)/g;
const DECLARATION = /<![A-Za-z][^>]*>/g;

/**
 * A link reference definition on its own line: `[label]: destination`, with or without a title. A label
 * holds no unescaped bracket (CommonMark), which also ends each failed scan for one at the next `[`.
 */
const DEFINITION =
  /^ {0,3}\[([^[\]\n]+)\]:[ \t]*(?:<[^<>\n]*>|\S+)(?:[ \t]+.*)?(?:\n[ \t]*(?:"[^"\n]*"|'[^'\n]*'|\([^()\n]*\))[ \t]*(?=\n|$))?$/gm;
/** A label in use: `[text][label]`, `[label][]` or `[label]` (not a link's `[text](…)`). */
const LABEL_USE = /\]\[([^[\]\n]+)\]|\[([^[\]\n]+)\](?!\(|:)/g;

/** An image's alt text, inline `![alt](…)` or reference style `![alt][ref]`: one level of brackets inside. */
const IMAGE_ALT = /!\[(?:[^[\]\n]|\[[^[\]\n]*\])*\]/g;

/** A link destination (`<…>` or bare, with one level of parentheses) followed by a title in ", ' or (). */
const LINK_TITLE =
  /(\]\([ \t]*(?:<[^<>\n]*>|(?:[^\s()]|\([^\s()]*\))+))[ \t]*\n?[ \t]*(?:"[^"]*"|'[^']*'|\([^()]*\))[ \t]*\)/g;

/** A link reference definition's title: `[ref]: url "title"`, the title also on the next line. */
const DEFINITION_TITLE =
  /^( {0,3}\[[^\]\n]+\]:[ \t]*(?:<[^<>\n]*>|\S+))[ \t]*\n?[ \t]*(?:"[^"]*"|'[^']*'|\([^()]*\))[ \t]*$/gm;

/**
 * An HTML start tag, attributes and all (quoted values may hold `>`). Attribute names never hold `<`, so a
 * failed match stops at the next tag's start: the scan stays linear however many unclosed tags there are.
 */
const HTML_TAG = /<[A-Za-z][\w:-]*(?:\s+[^\s"'<>/=]+(?:\s*=\s*(?:"[^"]*"|'[^']*'|[^\s"'=<>`]+))?)*\s*\/?>/g;

/** Attributes a reader does not see: alt, title, placeholder, aria-* and data-*. */
const HIDDEN_ATTRIBUTE =
  /\s+(?:alt|title|placeholder|aria-[\w-]*|data-[\w-]*)(?:\s*=\s*(?:"[^"]*"|'[^']*'|[^\s"'=<>`]+))?/gi;

/**
 * Removes what a reader cannot see but a model would read: numeric entities are decoded first (so an encoded
 * character is judged as what it shows), then invisible characters, HTML and Markdown comments, processing
 * instructions, declarations and CDATA, link reference definitions nothing uses, image alt text, link titles
 * and hidden HTML attributes go. Visible text is kept as written.
 */
export function stripHidden(text: string): string {
  const comments = stripInvisible(decodeNumericEntities(text)).replace(HTML_COMMENT, '').replace(CDATA, '');
  const visible = closedOnly(closedOnly(comments, PROCESSING_INSTRUCTION, '?>'), DECLARATION, '>');
  return withoutUnusedDefinitions(visible)
    .replace(MARKDOWN_COMMENT, '')
    .replace(IMAGE_ALT, '![]')
    .replace(LINK_TITLE, '$1)')
    .replace(DEFINITION_TITLE, '$1')
    .replace(HTML_TAG, (tag) => tag.replace(HIDDEN_ATTRIBUTE, ''));
}

/**
 * `text` without the matches of `pattern`, each of which ends with `closer`. An opener after the last closer
 * can never close, so the pattern is tried only before it: otherwise each unclosed opener would be scanned to
 * the end of the text, and a text of nothing but openers would cost the square of its length.
 */
function closedOnly(text: string, pattern: RegExp, closer: string): string {
  const last = text.lastIndexOf(closer);
  if (last === -1) return text;
  const end = last + closer.length;
  return text.slice(0, end).replace(pattern, '') + text.slice(end);
}

/** Link reference definitions no link uses: GitHub shows nothing of them. */
function withoutUnusedDefinitions(text: string): string {
  const label = (raw: string) => raw.trim().replace(/\s+/g, ' ').toLowerCase();
  const rest = text.replace(DEFINITION, '');
  if (rest.length === text.length) return text; // no definition: the labels in use need not be read
  const used = new Set([...rest.matchAll(LABEL_USE)].map((match) => label(match[1] ?? match[2] ?? '')));
  return text.replace(DEFINITION, (line, name: string) => (used.has(label(name)) ? line : ''));
}

function decodeNumericEntities(text: string): string {
  return text.replace(NUMERIC_ENTITY, (entity, hex: string | undefined, decimal: string | undefined) => {
    const code = hex === undefined ? Number(decimal) : Number.parseInt(hex, 16);
    // Not a character (out of range, a lone surrogate, NUL): it shows as nothing useful, so it goes.
    if (code === 0 || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) return '';
    return String.fromCodePoint(code);
  });
}
