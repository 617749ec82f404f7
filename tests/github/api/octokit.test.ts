// The Octokit every GitHub call goes through, against the GitHub emulator over real HTTP.
import { describe, expect, it } from 'vitest';
import { createOctokit } from '../../../src/github/api/octokit.js';
import { redactor } from '../../../src/text/redact.js';
import { TEST_REPO, TEST_TOKEN, useEmulatorPerTest } from '../../support/github/per-test.js';

const startEmulator = useEmulatorPerTest();

describe('the redaction boundary', () => {
  it('redacts every request made through the Octokit, one no GitHubApi method makes included', async () => {
    const github = await startEmulator({
      issues: [
        { number: 1, title: 'Tidy up' },
        { number: 5, title: 'A PR', body: 'old', pull_request: { head: 'agent/x' } },
      ],
    });
    redactor.add('boundary-secret-value');
    const shaped = `ghp_${'b'.repeat(36)}`;
    // A sink someone might add later, calling Octokit directly rather than through a GitHubApi method.
    const octokit = createOctokit({ ...TEST_REPO, token: TEST_TOKEN, baseUrl: github.url });
    await octokit.request('PATCH /repos/{owner}/{repo}/pulls/{pull_number}', {
      ...TEST_REPO,
      pull_number: 5,
      title: 'title boundary-secret-value',
      body: `body ${shaped} and "quoted" boundary-secret-value`,
    });
    await octokit.rest.issues.createComment({
      ...TEST_REPO,
      issue_number: 1,
      body: `nested boundary-secret-value\n${shaped}`,
    });
    expect(github.state.pulls[0]).toMatchObject({ title: 'title ***', body: 'body *** and "quoted" ***' });
    expect([...github.state.comments.values()].map((c) => c.body)).toEqual(['nested ***\n***']);
    const sent = JSON.stringify(github.calls.map((call) => call.body));
    expect(sent).not.toContain('boundary-secret-value');
    expect(sent).not.toContain(shaped);
    expect(github.violations).toEqual([]);
  });
});
