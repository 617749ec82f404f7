// The map of what the task and thread point to: the issues and pull requests of this repository they
// mention (`#123`, `owner/repo#123`, or a link), each with its kind, state and title, so the model knows
// what the github tool can read.
import { inertJson } from '../../text/inert-json.js';
import { Redirected, type ReadRequest } from '../api/reads.js';
import { stripHidden } from './hidden-text.js';

/** The most pointers listed; a thread that names more is a list, not a pointer. */
export const MAX_REFERENCES = 15;

const escapeRegex = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The numbers mentioned, text by text, each once, without `self`; at most MAX_REFERENCES. */
export function mentionedNumbers(
  texts: readonly string[],
  where: { owner: string; repo: string; serverUrl: string; self: number },
): number[] {
  const full = `${escapeRegex(where.owner)}/${escapeRegex(where.repo)}`;
  const patterns = [
    new RegExp(`${escapeRegex(where.serverUrl)}/${full}/(?:issues|pull)/(\\d+)`, 'gi'),
    new RegExp(`(?<![\\w/])${full}#(\\d+)\\b`, 'gi'),
    /(?<![\w/&#])#(\d+)\b/g,
  ];
  const found = new Set<number>();
  for (const text of texts) {
    const visible = stripHidden(text);
    for (const pattern of patterns) {
      for (const match of visible.matchAll(pattern)) {
        const number = Number(match[1]);
        if (number > 0 && number !== where.self) found.add(number);
      }
    }
  }
  return [...found].slice(0, MAX_REFERENCES);
}

/** One line per mention: number, kind, state and title (as JSON text), or that it does not exist. */
export async function referenceLines(
  read: ReadRequest,
  repo: { owner: string; repo: string },
  numbers: readonly number[],
): Promise<string[]> {
  return await Promise.all(
    numbers.map(async (number) => {
      try {
        const { data } = await read('GET /repos/{owner}/{repo}/issues/{issue_number}', {
          ...repo,
          issue_number: number,
        });
        const kind = data.pull_request ? 'pull request' : 'issue';
        return `#${number} ${kind}, ${data.state}: ${inertJson(stripHidden(data.title).trim())}`;
      } catch (error) {
        // A transferred issue answers with a redirect to its new repository, which is not followed.
        if (error instanceof Redirected) return `#${number}: moved to another repository`;
        return `#${number}: not found in this repository`;
      }
    }),
  );
}
