// CI results as the github tool shows them, read from the GitHub emulator: a pull request's head or a ref,
// failures first, the job id of an Actions job, and the commit statuses beside the check runs.
import { describe, expect, it } from 'vitest';
import { checksAnswer } from '../../../src/github/reading/checks.js';
import { TEST_REPO, useApiPerTest } from '../../support/github/per-test.js';

const apiFor = useApiPerTest();

async function pullWithChecks() {
  const { api, emu } = await apiFor({
    issues: [{ number: 4, title: 'Tidy', pull_request: { head: 'agent/issue-1' } }],
  });
  const good = emu.addCheckRun({ name: 'lint', ref: 'agent/issue-1' });
  const bad = emu.addCheckRun({
    name: 'test',
    ref: 'agent/issue-1',
    conclusion: 'failure',
    title: '2 failed',
  });
  emu.addCheckRun({ name: 'scan', ref: 'agent/issue-1', status: 'in_progress', app: 'scanner' });
  emu.addStatus({ ref: good.head_sha, context: 'ci/legacy', state: 'success', description: 'ok' });
  emu.addStatus({
    ref: good.head_sha,
    context: 'deploy',
    state: 'error',
    target_url: 'https://ci.example/9',
  });
  return { read: api.readOnly(), emu, good, bad };
}

describe('checksAnswer', () => {
  it("lists a pull request's head's check runs, failures first, then its statuses", async () => {
    const { read, emu, good, bad } = await pullWithChecks();
    const lines = (await checksAnswer(read, TEST_REPO, { number: 4 })).split('\n');
    expect(lines[0]).toBe(`checks of pull request #4's head agent/issue-1 (${good.head_sha.slice(0, 12)}):`);
    expect(lines[1]).toMatch(new RegExp(`^✗ test: completed, failure; job_id ${bad.id} — 2 failed`));
    expect(lines[2]).toMatch(/^· scan: in_progress; from .+ \(no job log\)/);
    expect(lines[3]).toMatch(new RegExp(`^✓ lint: completed, success; job_id ${good.id}`));
    expect(lines.slice(4)).toEqual([
      'commit statuses (combined: failure):',
      '✗ deploy: error https://ci.example/9',
      '✓ ci/legacy: success — ok',
    ]);
    expect(emu.violations).toEqual([]);
  });

  it('reads a ref as it is named, and says when a commit has no check runs', async () => {
    const { read, good } = await pullWithChecks();
    expect(await checksAnswer(read, TEST_REPO, { ref: good.head_sha })).toContain(
      `checks of ${good.head_sha}`,
    );
    const bare = await apiFor();
    const sha = 'a'.repeat(40);
    expect(await checksAnswer(bare.api.readOnly(), TEST_REPO, { ref: sha })).toBe(
      `checks of ${sha} (${sha.slice(0, 12)}):\nno check runs`,
    );
  });

  it('refuses a ref that is no plain name, and a question with neither ref nor number, before any request', async () => {
    const { api, emu } = await apiFor();
    await expect(checksAnswer(api.readOnly(), TEST_REPO, { ref: 'main..evil' })).rejects.toThrow(
      'is not a plain branch, tag or commit name',
    );
    await expect(checksAnswer(api.readOnly(), TEST_REPO, {})).rejects.toThrow(
      'checks needs a ref or a pull request number',
    );
    expect(emu.calls).toEqual([]);
  });
});
