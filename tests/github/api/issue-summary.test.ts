import { describe, expect, it } from 'vitest';
import { issueSummary } from '../../../src/github/api/issue-summary.js';

describe('issueSummary', () => {
  it('reads an issue as a payload and the REST API write it', () => {
    const data = {
      number: 12,
      title: 'Parser drops the last line',
      body: 'Steps: …',
      user: { login: 'octo' },
      author_association: 'MEMBER',
      state: 'open',
      locked: true,
    };
    expect(issueSummary(data, true)).toEqual({
      issueNumber: 12,
      isPullRequest: true,
      issueTitle: 'Parser drops the last line',
      issueBody: 'Steps: …',
      issueAuthor: 'octo',
      issueAuthorAssociation: 'MEMBER',
      issueState: 'open',
      locked: true,
    });
  });

  it('fills what GitHub leaves out: no body, a deleted author, no association, no lock flag', () => {
    const summary = issueSummary({ number: 3, title: 't', body: null, user: null, state: 'closed' }, false);
    expect(summary).toMatchObject({
      issueBody: '',
      issueAuthor: 'ghost',
      issueAuthorAssociation: 'NONE',
      locked: false,
    });
  });
});
