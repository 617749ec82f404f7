// The comment's block for work GitHub refused: the rule that refused, what to change, and the whole change
// as a patch, collapsed, when it is small enough to attach.
import { markdownSentence } from '../../text/markdown.js';
import { redactor } from '../../text/redact.js';

export interface RefusedWork {
  /** The rule that refused (a sentence fragment), when GitHub named one. */
  rule?: string;
  /** What to change. */
  advice?: string;
  /** The whole change, `git apply`-able. */
  patch?: string;
}

/** A patch over this is not attached (it is in the run record); GitHub's comments stop at 65,536 characters. */
export const MAX_ATTACHED_PATCH_CHARS = 60_000;

export function refusedWorkBlock({ rule, advice, patch }: RefusedWork, attach = true): string {
  const lines: string[] = [];
  if (rule)
    lines.push(
      `**GitHub refused the work:** ${markdownSentence(rule)}.${advice ? ` ${markdownSentence(advice)}` : ''}`,
    );
  if (patch !== undefined) {
    const text = redactor.redact(patch);
    if (attach && text.length <= MAX_ATTACHED_PATCH_CHARS) lines.push(patchDetails(text));
    else
      lines.push(
        `_The whole change (${Math.ceil(text.length / 1024)} KB as a patch) is too large to attach here; it is kept in the run's record._`,
      );
  }
  return lines.join('\n\n');
}

/**
 * The patch in a collapsed block, inside a fence longer than any run of backticks it holds, so that nothing
 * in it (HTML, a fence, `</details>`) can end the block or break the comment's Markdown.
 */
export function patchDetails(
  patch: string,
  summary = 'The whole change, as a patch (<code>git apply</code> it on the branch it started from)',
): string {
  const longest = Math.max(0, ...(patch.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(Math.max(3, longest + 1));
  const body = patch.endsWith('\n') ? patch : `${patch}\n`;
  return [
    `<details><summary>${summary}</summary>`,
    '',
    `${fence}diff`,
    `${body}${fence}`,
    '',
    '</details>',
  ].join('\n');
}
