// Issue and pull request search, in this repository only: one line each, number, kind, state and title.
import type { ReadRequest } from '../api/reads.js';
import { scopedQuery } from './guards.js';
import { cleaned, pageNote } from './text.js';

const SEARCH_PER_PAGE = 20;

export async function searchAnswer(
  read: ReadRequest,
  repo: { owner: string; repo: string },
  query: string,
  page: number,
): Promise<string> {
  const q = scopedQuery(query, `${repo.owner}/${repo.repo}`);
  const { data } = await read('GET /search/issues', { q, per_page: SEARCH_PER_PAGE, page });
  if (data.items.length === 0) return `no issues or pull requests match ${JSON.stringify(query)}`;
  const lines = data.items.map((item) => {
    const kind = item.pull_request ? 'pull request' : 'issue';
    return `#${item.number} ${kind}, ${item.state}: ${cleaned(item.title, 200)}`;
  });
  const more = page * SEARCH_PER_PAGE < data.total_count;
  return `${data.total_count} match(es) for ${JSON.stringify(query)}:\n${lines.join('\n')}${pageNote(page, lines.length, more, 'results')}`;
}
