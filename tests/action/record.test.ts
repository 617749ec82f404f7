// The action's run record (src/action/record.ts): opened in RUNNER_TEMP with the run's facts and its path the
// `transcript` output, a record that cannot be opened only a warning, the delivery as git has it, and the
// record read back for the job summary. The record's own lines are tested in tests/record/.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { RECORD_FILE, recordDelivery, recordForSummary, startRecord } from '../../src/action/record.js';
import { GitRepo } from '../../src/git/repo.js';
import type { WorkPlan } from '../../src/github/request/work-plan.js';
import type { RunRecord } from '../../src/record/run-record.js';
import { readSettings } from '../../src/settings/settings.js';
import { redactor } from '../../src/text/redact.js';
import { commitFiles, git } from '../support/git-fixture.js';
import { usePrinted } from '../support/printed.js';
import { commentTrigger, RUNNER_ENV } from '../support/runner-env.js';

const SECRET = 'sk-ant-record-test-secret-1234';
redactor.add(SECRET);

const printed = usePrinted();
let temp: string;
beforeEach(() => {
  temp = mkdtempSync(join(tmpdir(), 'action-record-'));
  writeFileSync(join(temp, 'output'), '');
  vi.stubEnv('GITHUB_OUTPUT', join(temp, 'output'));
});
afterEach(() => {
  vi.restoreAllMocks();
  vi.unstubAllEnvs();
  rmSync(temp, { recursive: true, force: true });
});

const settingsIn = (runnerTemp: string) =>
  readSettings({
    ...RUNNER_ENV,
    RUNNER_TEMP: runnerTemp,
    INPUT_GITHUB_TOKEN: 'ghs_recordTest',
    INPUT_ANTHROPIC_API_KEY: SECRET,
    INPUT_MODEL: 'claude-test-model',
  });

const trigger = { ...commentTrigger(7), request: { task: `Tidy the README, not ${SECRET}` } };

const lines = (path: string): Record<string, unknown>[] =>
  readFileSync(path, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);

async function started(): Promise<RunRecord> {
  const record = startRecord(settingsIn(temp), trigger);
  expect(record).toBeDefined();
  await record!.flush();
  return record!;
}

describe('startRecord', () => {
  it("opens the record in RUNNER_TEMP with the run's facts, redacted, and names it as the transcript output", async () => {
    const record = await started();
    expect(record.path).toBe(join(temp, RECORD_FILE));
    const [start, ...more] = lines(record.path);
    expect(more).toEqual([]);
    expect(start).toMatchObject({
      type: 'start',
      task: 'Tidy the README, not ***',
      source: 'issue_comment',
      thread: 'octo-org/hello-world#7',
      runUrl: 'https://github.example.com/octo-org/hello-world/actions/runs/4242',
      model: 'claude-test-model',
    });
    expect(readFileSync(join(temp, 'output'), 'utf8')).toContain(join(temp, RECORD_FILE));
    await record.close();
  });

  it('warns, and the run goes on without a record, when RUNNER_TEMP cannot hold one', () => {
    const missing = join(temp, 'no-such-folder');
    expect(startRecord(settingsIn(missing), trigger)).toBeUndefined();
    expect(printed()).toContain(`::warning::could not open the run record ${join(missing, RECORD_FILE)}: `);
    expect(readFileSync(join(temp, 'output'), 'utf8')).toBe('');
  });
});

describe('recordDelivery', () => {
  function repoWithWork(): { git: GitRepo; startSha: string } {
    const dir = join(temp, 'repo');
    git(temp, 'init', '-q', '-b', 'main', dir);
    commitFiles(dir, { 'hello.py': 'print("hi")\n' }, 'start');
    const startSha = git(dir, 'rev-parse', 'HEAD');
    commitFiles(dir, { 'hello.py': 'print("hello")\n' }, 'work');
    return { git: new GitRepo(dir), startSha };
  }
  const plan = (kind: 'fresh' | 'plan'): WorkPlan =>
    kind === 'plan'
      ? { kind, base: 'main', task: 'Tidy' }
      : { kind, branch: 'agent/issue-7', base: 'main', task: 'Tidy', continuesBranch: false };
  const delivery = { pushedBranch: 'agent/issue-7', pr: { number: 2, url: 'u', reused: false } };

  it('writes what the commits hold and where they went', async () => {
    const record = await started();
    await recordDelivery(record, { ...repoWithWork(), plan: plan('fresh') }, delivery, undefined);
    await record.flush();
    expect(lines(record.path).slice(1)).toEqual([
      expect.objectContaining({ type: 'delivery', committed: ['M\thello.py'], pushed: 'agent/issue-7' }),
    ]);
    await record.close();
  });

  it('writes nothing for a plan, and nothing without a record', async () => {
    const record = await started();
    const repo = repoWithWork();
    await recordDelivery(record, { ...repo, plan: plan('plan') }, {}, undefined);
    await record.flush();
    expect(lines(record.path).map((line) => line.type)).toEqual(['start']);
    await expect(
      recordDelivery(undefined, { ...repo, plan: plan('fresh') }, delivery, undefined),
    ).resolves.toBeUndefined();
    await record.close();
  });
});

describe('recordForSummary', () => {
  it('reads the record back as the terminal shows the run, the lines written so far included', async () => {
    const record = await started();
    record.note('Waited for run 10.');
    const summary = await recordForSummary(record);
    expect(summary?.path).toBe(record.path);
    expect(summary?.text).toContain('Tidy the README, not ***');
    expect(summary?.text).toContain('Waited for run 10.');
    expect(summary?.text).not.toContain(SECRET);
    await record.close();
  });

  it('is undefined without a record, and with a warning when the record cannot be read back', async () => {
    expect(await recordForSummary(undefined)).toBeUndefined();
    const record = await started();
    rmSync(record.path);
    expect(await recordForSummary(record)).toBeUndefined();
    expect(printed()).toContain('::warning::could not read the run record back for the summary: ');
    await record.close();
  });
});
