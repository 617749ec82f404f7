// The github tool's request function (src/github/api/reads.ts) against the GitHub emulator: GETs only, each one
// counted, and a redirect (a transferred issue) never followed.
import { describe, expect, it } from 'vitest';
import { Redirected } from '../../../src/github/api/reads.js';
import { useApiPerTest } from '../../support/github/per-test.js';

const apiFor = useApiPerTest();

describe('readOnlyRequest', () => {
  it('reads with GET and counts each read it sends', async () => {
    const { api, emu } = await apiFor();
    const read = api.readOnly();
    const { data } = await read('GET /repos/{owner}/{repo}/issues/{issue_number}', {
      owner: api.owner,
      repo: api.repo,
      issue_number: 1,
    });
    expect(data).toMatchObject({ number: 1, title: 'Tidy up' });
    expect(api.reads).toBe(1);
    expect(emu.violations).toEqual([]);
  });

  it.each([
    ['a route that is not a GET', 'POST /repos/{owner}/{repo}/issues', {}],
    ['a GET route whose method says otherwise', 'GET /repos/{owner}/{repo}/issues', { method: 'DELETE' }],
  ])('refuses %s before sending it, and counts nothing', async (_k, route, extra) => {
    const { api, emu } = await apiFor();
    const read = api.readOnly();
    await expect(read(route, { owner: api.owner, repo: api.repo, ...extra })).rejects.toThrow(
      `the github tool only reads; ${route} is refused`,
    );
    expect(api.reads).toBe(0);
    expect(emu.calls).toEqual([]);
  });

  it('does not follow the redirect of a transferred issue: it says where it led', async () => {
    const { api, emu } = await apiFor();
    emu.transferIssue(1, { repository: 'octo-org/elsewhere', repositoryId: 4242, newNumber: 9 });
    const read = api.readOnly();
    const error = await read('GET /repos/{owner}/{repo}/issues/{issue_number}', {
      owner: api.owner,
      repo: api.repo,
      issue_number: 1,
    }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(Redirected);
    expect(error).toMatchObject({
      status: 301,
      location: expect.stringMatching(/\/repositories\/4242\/issues\/9$/),
    });
    expect((error as Error).message).toMatch(/with a redirect \(301\) to .*\/repositories\/4242\/issues\/9$/);
    // Nothing was asked of the place it leads to.
    expect(emu.calls.map((call) => call.path)).toEqual(['/repos/octo-org/hello-world/issues/1']);
  });

  it("hands the redirect back as the answer to a read that asks for it (a job's log)", async () => {
    const { api, emu } = await apiFor();
    emu.transferIssue(1, { repository: 'octo-org/elsewhere', repositoryId: 4242, newNumber: 9 });
    const answer = await api.readOnly()('GET /repos/{owner}/{repo}/issues/{issue_number}', {
      owner: api.owner,
      repo: api.repo,
      issue_number: 1,
      request: { redirect: 'manual' },
    });
    expect(answer.status).toBe(301);
    expect(String(answer.headers.location)).toMatch(/\/repositories\/4242\/issues\/9$/);
  });
});
