// The github tool's reader against the emulator over real HTTP: an issue GitHub answers with a redirect
// (transferred to another repository) is not followed, and the answer says where it went.
import { describe, expect, it } from 'vitest';
import { RepositoryReading, whereItWent } from '../../../src/github/reading/reader.js';
import { TEST_TOKEN, useApiPerTest } from '../../support/github/per-test.js';
import { expectHonest } from '../../support/github/honest.js';

const apiFor = useApiPerTest();

async function readerWithTransfer() {
  const { api, emu } = await apiFor({
    permissions: { maintainer: 'admin' },
    issues: [
      { number: 72, title: 'Crash on start', body: 'It crashes.', user: 'alice' },
      { number: 73, title: 'Typo', body: 'A typo.', user: 'bob' },
    ],
  });
  emu.addComment(72, 'bob', 'Same here.');
  emu.transferIssue(72, { repository: 'octo-org/elsewhere', repositoryId: 4242, newNumber: 220 });
  return { github: emu, api, reader: new RepositoryReading(api, emu.url) };
}

describe('RepositoryReading', () => {
  it('does not follow the redirect of a transferred issue, and says where it went', async () => {
    const { github, reader } = await readerWithTransfer();
    const failure = await reader.answer({ what: 'issue', number: 72 }).then(
      () => undefined,
      (error: Error) => error.message,
    );
    expect(failure).toBe(
      'issue #72 is no longer in octo-org/hello-world: GitHub redirects it (301) to issue #220 of the ' +
        `repository with id 4242 (${github.url}/repositories/4242/issues/220), as it does for an issue ` +
        'transferred to another repository. The github tool reads octo-org/hello-world only, so it did not follow.',
    );
    // One request, answered 301: nothing was asked at the new address.
    expect(github.calls.map((c) => `${c.method} ${c.path} ${c.status}`)).toEqual([
      'GET /repos/octo-org/hello-world/issues/72 301',
    ]);
    // The next issue reads as before.
    expect(await reader.answer({ what: 'issue', number: 73 })).toMatch(/^issue #73 \(open\): Typo/);
    expectHonest(github);
  });

  it('is where a client that follows redirects would have read the other repository’s issue', async () => {
    // What the reader guards against, shown with the same client following the redirect (fetch's default).
    const { github } = await readerWithTransfer();
    const followed = await fetch(`${github.url}/repos/octo-org/hello-world/issues/72`, {
      headers: { authorization: `token ${TEST_TOKEN}` },
    });
    const issue = (await followed.json()) as { number: number; repository_url: string; title: string };
    expect([followed.redirected, issue.number, issue.title]).toEqual([true, 220, 'Crash on start']);
    expect(issue.repository_url).toBe(`${github.url}/repos/octo-org/elsewhere`);
    // Its comments are not redirected: they are gone from here.
    const comments = await fetch(`${github.url}/repos/octo-org/hello-world/issues/72/comments`, {
      headers: { authorization: `token ${TEST_TOKEN}` },
    });
    expect(comments.status).toBe(404);
  });
});

describe('whereItWent', () => {
  it('names the issue or pull request and the repository a redirect leads to', () => {
    expect(whereItWent('https://api.github.com/repositories/12/issues/3')).toBe(
      'issue #3 of the repository with id 12 (https://api.github.com/repositories/12/issues/3)',
    );
    expect(whereItWent('https://api.github.com/repos/o/other/pulls/9?x=1')).toBe(
      'pull request #9 of o/other (https://api.github.com/repos/o/other/pulls/9?x=1)',
    );
    expect(whereItWent('https://api.github.com/repositories/12')).toBe(
      'https://api.github.com/repositories/12',
    );
    expect(whereItWent('')).toBe('no location');
  });
});
