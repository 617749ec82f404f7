import { describe, expect, it } from 'vitest';
import { GitHubApi } from '../../../src/github/api/github-api.js';
import { mentionedNumbers, referenceLines } from '../../../src/github/thread/references.js';
import { TEST_REPO, TEST_TOKEN, useEmulatorPerTest } from '../../support/github/per-test.js';
import { expectHonest } from '../../support/github/honest.js';

const where = { owner: 'octo-org', repo: 'hello-world', serverUrl: 'https://github.com', self: 1 };

describe('mentionedNumbers', () => {
  it('finds #N, owner/repo#N and links to this repository, each once, without the issue itself', () => {
    const texts = [
      'CI is red since #42, see also #7 and #42 again',
      'Like octo-org/hello-world#9 and https://github.com/octo-org/hello-world/pull/12 (not #1)',
    ];
    expect(mentionedNumbers(texts, where)).toEqual([42, 7, 12, 9]);
  });

  it('leaves out other repositories, anchors, words run into a number, and what a reader does not see', () => {
    const texts = [
      'other/repo#5, https://github.com/other/repo/issues/6, a heading link (#readme), issue#4',
      '<!-- #8 is hidden --> ![#10](x.png)',
    ];
    expect(mentionedNumbers(texts, where)).toEqual([]);
  });
});

describe('referenceLines', () => {
  const startEmulator = useEmulatorPerTest();

  it('says an issue moved to another repository, without following GitHub to it or showing its title', async () => {
    const emu = await startEmulator({
      issues: [
        { number: 5, title: 'Moved away', body: '' },
        { number: 6, title: 'Still here', body: '' },
      ],
    });
    emu.transferIssue(5, { repository: 'octo-org/elsewhere', repositoryId: 77, newNumber: 1 });
    const api = new GitHubApi({ ...TEST_REPO, token: TEST_TOKEN, baseUrl: emu.url });
    const lines = await referenceLines(api.readOnly(), TEST_REPO, [5, 6, 9]);
    expect(lines).toEqual([
      '#5: moved to another repository',
      '#6 issue, open: "Still here"',
      '#9: not found in this repository',
    ]);
    expect(emu.calls.some((c) => c.path.startsWith('/repositories/'))).toBe(false);
    expectHonest(emu);
  });
});
