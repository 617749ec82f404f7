// The model's closing summary in the pull request body: kept as Markdown, but it can no longer ping anyone,
// close or link-close an issue, embed an image, or carry raw HTML. And the other way: the issues a person's
// description closes, read as GitHub reads them.
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

/** GitHub's closing keywords (any case), an optional colon and the space before what they close. */
const KEYWORD = String.raw`\b(?:close[sd]?|fix(?:e[sd])?|resolve[sd]?)\b:?[ \t]+`;

/**
 * A closing keyword with what it closes (`Closes #3`, `fixes: o/r#3`, `Resolved https://…/issues/3`), or a
 * mention (`@name`, `@org/team`). Both go into code spans, where GitHub neither closes nor notifies.
 */
const ACTIVE = new RegExp(
  String.raw`${KEYWORD}(?:[\w.-]+\/[\w.-]+)?#\d+|${KEYWORD}https?:\/\/\S+|(?<![\w/])@[A-Za-z0-9](?:[\w-]*)(?:\/[\w.-]+)?`,
  'gi',
);

/** A closing keyword and the issue it names, `#3` or `owner/repo#3` (GitHub's two forms): repository, number. */
const CLOSING = new RegExp(String.raw`${KEYWORD}(?:([\w.-]+\/[\w.-]+))?#(\d+)\b`, 'gi');

/** An issue a closing keyword names, in prose (not code), in the order written; `repo` when it names one. */
export interface ClosingReference {
  repo?: string;
  number: number;
}

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
  return outsideCode(stripInvisible(redactor.redact(text)), inertProse);
}

/**
 * What the closing keywords of a description name, as GitHub reads them: `close`, `closes`, `closed`, `fix`,
 * `fixes`, `fixed`, `resolve`, `resolves`, `resolved`, in any case, an optional colon, then `#N` or
 * `owner/repo#N`, anywhere in the prose (code is left out: GitHub acts on nothing inside).
 */
export function closingReferences(text: string): ClosingReference[] {
  const found: ClosingReference[] = [];
  outsideCode(stripInvisible(text), (prose) => {
    for (const [, repo, number] of prose.matchAll(CLOSING))
      found.push({ ...(repo ? { repo } : {}), number: Number(number) });
    return prose;
  });
  return found;
}

/** The text with each stretch of prose between code (fences, spans) passed through `prose`; code as it was. */
function outsideCode(text: string, prose: (part: string) => string): string {
  let out = '';
  let from = 0;
  for (const code of text.matchAll(CODE)) {
    out += prose(text.slice(from, code.index)) + code[0];
    from = code.index + code[0].length;
  }
  return out + prose(text.slice(from));
}

function inertProse(text: string): string {
  return text
    .replace(HTML, '&lt;')
    .replace(IMAGE, '')
    .replace(ACTIVE, (phrase) => `\`${phrase}\``);
}
