import { describe, expect, it } from 'vitest';
import { mentionedNumbers } from '../../../src/github/thread/references.js';

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
