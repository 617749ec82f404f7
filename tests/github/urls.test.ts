// The links the checklist, the summary and the record give (src/github/urls.ts), on github.com or a server of
// its own.
import { describe, expect, it } from 'vitest';
import { commitUrl, runUrl, treeUrl } from '../../src/github/urls.js';

describe('urls', () => {
  it('builds run, branch and commit links on the server the run is on', () => {
    const where = { serverUrl: 'https://ghes.example.test', owner: 'octo-org', repo: 'hello-world' };
    expect(runUrl(where, '123')).toBe('https://ghes.example.test/octo-org/hello-world/actions/runs/123');
    expect(treeUrl(where, 'agent/issue-1')).toBe(
      'https://ghes.example.test/octo-org/hello-world/tree/agent/issue-1',
    );
    expect(commitUrl(where, 'abc123')).toBe('https://ghes.example.test/octo-org/hello-world/commit/abc123');
  });
});
