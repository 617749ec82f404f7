// The model's closing summary in the pull request body: kept as Markdown, but it can no longer ping anyone,
// close or link-close an issue, embed an image, or carry raw HTML.
import { redactor } from './redact.js';
import { stripInvisible } from './invisible.js';

/**
 * Code as GitHub reads it, left as it is (GitHub acts on nothing inside): a fence opens only at the start of a
 * line (up to three spaces in) and runs to a closing fence line or to the end of the text; a code span is a
 * run of backticks, not escaped, closed by a run of the same length on the same line. Anything else that
 * looks like code (a fence mid-line, an escaped or unclosed backtick) is shown as text, so it is prose here.
 */
const CODE =
  /^ {0,3}(`{3,}|~{3,})[^\n]*(?:\n[\s\S]*?(?:\n {0,3}\1[`~]*[ \t]*(?=\n|$(?![\s\S]))|$(?![\s\S]))|$(?![\s\S]))|(?<![\\`])(`+)(?!`)[^\n]*?[^`\n]\2(?!`)/gm;

/**
 * A closing keyword with what it closes (`Closes #3`, `fixes: o/r#3`, `Resolved https://…/issues/3`), or a
 * mention (`@name`, `@org/team`). Both go into code spans, where GitHub neither closes nor notifies.
 */
const ACTIVE =
  /\b(?:close[sd]?|fix(?:e[sd])?|resolve[sd]?)\b:?[ \t]+(?:[\w.-]+\/[\w.-]+)?#\d+|\b(?:close[sd]?|fix(?:e[sd])?|resolve[sd]?)\b:?[ \t]+https?:\/\/\S+|(?<![\w/])@[A-Za-z0-9](?:[\w-]*)(?:\/[\w.-]+)?/gi;

/** An image: `![alt](…)` and `![alt][ref]` lose the `!` and stay links. */
const IMAGE = /!(?=\[)/g;

/** Raw HTML (tags, comments, `<img>`): its `<` is shown as text. */
const HTML = /<(?=[A-Za-z/!?])/g;

/**
 * The summary, made inert outside code: no mentions, no closing keywords, no images, no HTML. Redacted
 * first, since the rewriting (a mention put in a code span, `<` as `&lt;`) can split a secret so that the
 * API's own redaction no longer knows it.
 */
export function inertMarkdown(text: string): string {
  const clean = stripInvisible(redactor.redact(text));
  let inert = '';
  let from = 0;
  for (const code of clean.matchAll(CODE)) {
    inert += inertProse(clean.slice(from, code.index)) + code[0];
    from = code.index + code[0].length;
  }
  return inert + inertProse(clean.slice(from));
}

function inertProse(text: string): string {
  return text
    .replace(HTML, '&lt;')
    .replace(IMAGE, '')
    .replace(ACTIVE, (phrase) => `\`${phrase}\``);
}
