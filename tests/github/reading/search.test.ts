// Issue and pull request search against the GitHub emulator: scoped to this repository, one line a match,
// and a query that names its own scope refused before it is sent.
import { describe, expect, it } from 'vitest';
import { searchAnswer } from '../../../src/github/reading/search.js';
import { TEST_REPO, useApiPerTest } from '../../support/github/per-test.js';

const apiFor = useApiPerTest();

describe('searchAnswer', () => {
  it('lists each match with its number, kind, state and title, in this repository only', async () => {
    const { api, emu } = await apiFor({
      issues: [
        { number: 1, title: 'Crash on start', body: 'The parser crashes.' },
        { number: 2, title: 'Fix the parser crash', pull_request: { head: 'fix' } },
        { number: 3, title: 'Old parser crash', state: 'closed' },
        { number: 4, title: 'Docs' },
      ],
    });
    const answer = await searchAnswer(api.readOnly(), TEST_REPO, 'parser crash', 1);
    expect(answer.split('\n')).toEqual([
      '3 match(es) for "parser crash":',
      '#1 issue, open: Crash on start',
      '#2 pull request, open: Fix the parser crash',
      '#3 issue, closed: Old parser crash',
    ]);
    expect(emu.calls.at(-1)!.query.q).toBe('parser crash repo:octo-org/hello-world');
    expect(emu.violations).toEqual([]);
  });

  it('says when nothing matches, and tells of a next page', async () => {
    const issues = Array.from({ length: 25 }, (_, i) => ({ number: i + 1, title: `flaky test ${i + 1}` }));
    const { api } = await apiFor({ issues });
    expect(await searchAnswer(api.readOnly(), TEST_REPO, 'nothing here', 1)).toBe(
      'no issues or pull requests match "nothing here"',
    );
    const first = await searchAnswer(api.readOnly(), TEST_REPO, 'flaky', 1);
    expect(first.split('\n')).toHaveLength(1 + 20 + 1);
    expect(first.split('\n').at(-1)).toBe('[page 1: 20 results; read on with page=2]');
    const second = await searchAnswer(api.readOnly(), TEST_REPO, 'flaky', 2);
    expect(second.split('\n').filter((line) => line.startsWith('#'))).toHaveLength(5);
    expect(second.split('\n').at(-1)).toBe('[page 2: 5 results]');
  });

  it('refuses a query that names a scope of its own, before asking GitHub', async () => {
    const { api, emu } = await apiFor();
    await expect(searchAnswer(api.readOnly(), TEST_REPO, 'secrets repo:other/repo', 1)).rejects.toThrow(
      'the query names a scope (repo:)',
    );
    expect(emu.calls).toEqual([]);
  });
});
