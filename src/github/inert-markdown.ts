// The model's closing summary in the pull request body: kept as Markdown, but it can no longer ping anyone,
// close or link-close an issue, embed an image, or carry raw HTML.
import { redactor } from '../redact.js';
import { stripInvisible } from '../text/invisible.js';

/** Code fences and code spans: left as they are (GitHub acts on nothing inside them). */
const CODE = /(```[\s\S]*?(?:```|$)|~~~[\s\S]*?(?:~~~|$)|`[^`\n]+`)/;

/**
 * A closing keyword with what it closes (`Closes #3`, `fixes: o/r#3`, `Resolved https://…/issues/3`), or a
 * mention (`@name`, `@org/team`). Both go into code spans, where GitHub neither closes nor notifies.
 */
const ACTIVE =
  /\b(?:close[sd]?|fix(?:e[sd])?|resolve[sd]?)\b:?[ \t]+(?:[\w.-]+\/[\w.-]+)?#\d+|\b(?:close[sd]?|fix(?:e[sd])?|resolve[sd]?)\b:?[ \t]+https?:\/\/\S+|(?<![\w`/])@[A-Za-z0-9](?:[\w-]*)(?:\/[\w.-]+)?/gi;

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
  return stripInvisible(redactor.redact(text))
    .split(CODE)
    .map((part, index) => (index % 2 === 1 ? part : inertProse(part)))
    .join('');
}

function inertProse(text: string): string {
  return text
    .replace(HTML, '&lt;')
    .replace(IMAGE, '')
    .replace(ACTIVE, (phrase) => `\`${phrase}\``);
}
