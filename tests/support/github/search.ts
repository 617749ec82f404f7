// Issue search (`GET /search/issues`): the words and the qualifiers the action's queries use, over this
// repository's issues and pull requests. A query scoped to another repository finds nothing here, as the
// emulator knows no other; the query is recorded so tests can check what was asked.
import { issueJson } from './json.js';
import type { HandlerTable } from './replies.js';
import { commentCount } from './state.js';
import type { Emu } from './state.js';

export function searchHandlers(emu: Emu): HandlerTable {
  return {
    'search/issues-and-pull-requests': ({ url }) => {
      const q = url.searchParams.get('q') ?? '';
      const terms = q.split(/\s+/).filter(Boolean);
      const repos = terms.filter((t) => t.startsWith('repo:')).map((t) => t.slice(5).toLowerCase());
      const ours = `${emu.owner}/${emu.repo}`.toLowerCase();
      const words = terms.filter((t) => !t.includes(':')).map((t) => t.toLowerCase());
      const has = (qualifier: string) => terms.includes(qualifier);
      const items = [...emu.state.issues.values()].filter((issue) => {
        if (repos.length > 0 && !repos.includes(ours)) return false;
        if (has('is:pr') && !issue.pull_request) return false;
        if (has('is:issue') && issue.pull_request) return false;
        if (has('is:open') && issue.state !== 'open') return false;
        if (has('is:closed') && issue.state !== 'closed') return false;
        const text = `${issue.title}\n${issue.body}`.toLowerCase();
        return words.every((word) => text.includes(word));
      });
      const perPage = Number(url.searchParams.get('per_page') ?? 30);
      const page = Number(url.searchParams.get('page') ?? 1);
      const shown = items.slice((page - 1) * perPage, page * perPage);
      return {
        status: 200,
        body: {
          total_count: items.length,
          incomplete_results: false,
          search_type: 'lexical',
          items: shown.map((issue) => ({
            ...issueJson(emu, issue, commentCount(emu, issue.number)),
            score: 1,
          })),
        },
      };
    },
  };
}
