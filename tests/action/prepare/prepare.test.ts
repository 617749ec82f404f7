// The run's preparation on a real repository with the GitHub emulator over real HTTP, for the two ways it
// ends before the agent: a request it declines (`go` with no plan on the thread), after which nothing it
// opened is left (the tools' runtime closed, its own git directory removed); and a failure, which is
// answered on the issue before it goes on. Preparations that reach the agent run whole in tests/e2e/.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { prepare, type JobRequest } from '../../../src/action/prepare/prepare.js';
import type { RunTrigger } from '../../../src/github/request/trigger.js';
import { readSettings } from '../../../src/settings/settings.js';
import { Redactor } from '../../../src/text/redact.js';
import { useWorkTree } from '../../support/delivery-fixture.js';
import { useApiPerTest } from '../../support/github/per-test.js';
import { usePrinted } from '../../support/printed.js';
import { commentTrigger, RUNNER_ENV } from '../../support/runner-env.js';
import { useTempDir } from '../../support/temp-dir.js';

const apiFor = useApiPerTest();
const tree = useWorkTree('prepare-', { 'index.js': 'module.exports = 1;\n' });
const runnerTemp = useTempDir('prepare-runner');
usePrinted();
afterEach(() => {
  vi.unstubAllEnvs();
});

const go: RunTrigger = {
  ...commentTrigger(),
  kind: 'run',
  request: { kind: 'go', task: 'go', instructions: '' },
};

async function request(workspace: string): Promise<{ job: JobRequest; replies: () => string[] }> {
  const { api, emu } = await apiFor();
  vi.stubEnv('RUNNER_TEMP', runnerTemp());
  const settings = readSettings({
    ...RUNNER_ENV,
    GITHUB_WORKSPACE: workspace,
    GITHUB_API_URL: emu.url,
    RUNNER_TEMP: runnerTemp(),
    INPUT_GITHUB_TOKEN: 'ghs_prepareTest',
    INPUT_ANTHROPIC_API_KEY: 'sk-ant-prepare-test',
    INPUT_SANDBOX: 'off',
    INPUT_TOOL_NETWORK: 'all',
  });
  const job: JobRequest = {
    settings,
    trigger: go,
    api,
    redactor: new Redactor(),
    secrets: [],
    signal: new AbortController().signal,
  };
  return { job, replies: () => [...emu.state.comments.values()].map((c) => c.body) };
}

describe('prepare', () => {
  it('declines `go` without a plan on the thread, leaving no git directory of its own behind', async () => {
    const { job, replies } = await request(tree.dir);
    expect(await prepare(job)).toEqual({
      decline: 'there is no plan on this thread to run: comment `plan <task>` first',
    });
    expect(readdirSync(runnerTemp()).filter((name) => name.startsWith('todo-agent-git-'))).toEqual([]);
    // Declining is the caller's to say (job.ts): nothing is posted here.
    expect(replies()).toEqual([]);
  });

  it('answers a failure on the issue before it goes on', async () => {
    const { job, replies } = await request(join(runnerTemp(), 'no-such-workspace'));
    await expect(prepare(job)).rejects.toThrow();
    const [reply, ...more] = replies();
    expect(more).toEqual([]);
    expect(reply).toMatch(/^❌ todo-agent could not start: /);
  });
});
