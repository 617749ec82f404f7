// deliver() against the GitHub emulator (its refs and API commits written into a real bare origin, whose
// pre-receive hook plays GitHub's push rules) with our real git: a refusal deletes the branch made for the
// work once, and workflow files the token may not change cost only themselves.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AgentResult } from '../../src/agent/events.js';
import { BranchClaim } from '../../src/delivery/branch-claim.js';
import { deliver, type DeliveryRequest } from '../../src/delivery/deliver.js';
import { GitHubApi } from '../../src/github/api.js';
import { GitRepo } from '../../src/git/repo.js';
import {
  cloneNewOrigin,
  commitFiles,
  git,
  GIT_ENV,
  useGitScratch,
  type GitScratch,
} from '../support/git-fixture.js';
import type { EmulatorOptions } from '../support/github/emulator.js';
import { refuseWorkflowPushes } from '../support/github/origin-rules.js';
import { TEST_REPO, TEST_TOKEN, useEmulatorPerTest } from '../support/github/per-test.js';

const startEmulator = useEmulatorPerTest();
let scratch: GitScratch;
useGitScratch('deliver-', (made) => {
  scratch = made;
  cloneNewOrigin(made, made.dir);
  mkdirSync(join(made.dir, '.github', 'workflows'), { recursive: true });
  commitFiles(
    made.dir,
    { 'index.js': 'module.exports = 1;\n', '.github/workflows/ci.yml': 'name: ci\n' },
    'Start',
  );
  git(made.dir, 'push', '--quiet', 'origin', 'main');
});

const BRANCH = 'agent/issue-1-7';
const RESULT: AgentResult = {
  status: 'completed',
  reason: 'every todo item is completed',
  todos: [{ id: '1', text: 'Fix index.js', status: 'completed' }],
  lastText: 'Fixed index.js and added a workflow.',
  turns: 3,
  toolCalls: 4,
  usage: {
    input_tokens: 10,
    output_tokens: 10,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
  },
  costUsd: 0.01,
};

/** The emulator on the scratch's origin, our git in the clone, and a delivery request for them. */
async function deliveryFor(emulator: EmulatorOptions, options: Partial<DeliveryRequest> = {}) {
  const emu = await startEmulator({ remoteDir: scratch.origin, ...emulator });
  const api = new GitHubApi({ ...TEST_REPO, token: TEST_TOKEN, baseUrl: emu.url });
  const repo = new GitRepo(scratch.dir, { env: GIT_ENV });
  const request: DeliveryRequest = {
    git: repo,
    api,
    result: RESULT,
    startSha: await repo.head(),
    branch: BRANCH,
    base: 'main',
    continuesBranch: false,
    openPull: true,
    signed: true,
    commitMessage: 'Fix index.js',
    redact: (text) => text,
    pull: { title: 'Fix index.js', body: () => 'The description.', draft: false },
    ...options,
  };
  return { emu, request };
}

/** The model's work: index.js fixed, and a new workflow and a changed one. */
function changeCodeAndWorkflows(): void {
  writeFileSync(join(scratch.dir, 'index.js'), 'module.exports = 2;\n');
  writeFileSync(join(scratch.dir, '.github/workflows/ci.yml'), 'name: ci\non: push\n');
  writeFileSync(join(scratch.dir, '.github/workflows/release.yml'), 'name: release\n');
}

const refCalls = (emu: { calls: Array<{ operationId?: string; status: number }> }) =>
  emu.calls.filter((c) => c.operationId?.startsWith('git/')).map((c) => `${c.operationId} ${c.status}`);

/** The files the origin's branch changes from main. */
const onBranch = (branch = BRANCH) =>
  git(scratch.origin, 'diff', '--name-only', `main...${branch}`).split('\n').filter(Boolean);

describe('deliver', () => {
  it('deletes the branch claimed for an API commit a ruleset refused, once', async () => {
    const { emu, request } = await deliveryFor({});
    emu.failNext(
      { method: 'POST', path: /^\/graphql$/ },
      {
        status: 200,
        body: {
          data: null,
          errors: [
            {
              type: 'UNPROCESSABLE',
              message: 'Repository rule violations found\n\nChanges must be made through a pull request.',
            },
          ],
        },
      },
    );
    writeFileSync(join(scratch.dir, 'index.js'), 'module.exports = 2;\n');
    const claim = new BranchClaim(request);
    claim.stake([
      { path: 'index.js', status: 'M', oldMode: '100644', mode: '100644', blob: '0'.repeat(40), size: 9 },
    ]);
    expect(await claim.claimed()).toBe(BRANCH);
    const delivery = await deliver({ ...request, claim });
    expect(delivery.refusal?.rule).toContain('Changes must be made through a pull request');
    expect(delivery.patch).toContain('+module.exports = 2;');
    // Made once at the model's last look, deleted once (a second DELETE would be answered 422).
    expect(refCalls(emu)).toEqual(['git/create-ref 201', 'git/delete-ref 204']);
    await claim.drop();
    expect(refCalls(emu)).toHaveLength(2);
    expect(emu.violations).toEqual([]);
  });

  it('delivers the rest when the API refuses a workflow file, with the workflow part kept as a patch', async () => {
    const { emu, request } = await deliveryFor({ appBot: 'todo-app[bot]', workflowsPermission: false });
    changeCodeAndWorkflows();
    const delivery = await deliver(request);
    expect(delivery.pr).toMatchObject({ number: expect.any(Number), reused: false });
    expect(onBranch()).toEqual(['index.js']);
    expect(delivery.withheld).toMatchObject({
      paths: ['.github/workflows/ci.yml', '.github/workflows/release.yml'],
      refused: true,
      refusal: {
        rule: 'the token may not create or change workflow files (.github/workflows/ci.yml, .github/workflows/release.yml)',
      },
    });
    expect(delivery.withheld?.patch).toContain('+on: push');
    expect(delivery.withheld?.patch).toContain('+name: release');
    expect(delivery.withheld?.patch).not.toContain('index.js');
    expect(delivery.note).toContain('The work went ahead without `.github/workflows/ci.yml`');
    expect(delivery.patch).toBeUndefined();
    // The branch made for the refused commit took the second one: made once, never deleted.
    expect(refCalls(emu)).toEqual(['git/create-ref 201']);
    expect(emu.state.apiCommits).toHaveLength(1);
    expect(emu.violations).toEqual([]);
  });

  it('delivers the rest when a push is refused for a workflow file, in one commit that never held it', async () => {
    const { emu, request } = await deliveryFor(
      { appBot: 'todo-app[bot]', workflowsPermission: false },
      { signed: false },
    );
    await refuseWorkflowPushes(scratch.origin);
    changeCodeAndWorkflows();
    const delivery = await deliver(request);
    expect(delivery.pr).toBeDefined();
    expect(onBranch()).toEqual(['index.js']);
    expect(git(scratch.origin, 'rev-list', '--count', `main..${BRANCH}`)).toBe('1');
    expect(delivery.withheld?.paths).toEqual(['.github/workflows/ci.yml', '.github/workflows/release.yml']);
    expect(emu.violations).toEqual([]);
  });

  it('leaves the workflow files out up front when the token is known not to have the permission', async () => {
    // The workflow's own token: GitHub's answer to nothing is needed, no commit or push touches them.
    const { emu, request } = await deliveryFor({ workflowsPermission: false }, { mayChangeWorkflows: false });
    changeCodeAndWorkflows();
    const delivery = await deliver(request);
    expect(onBranch()).toEqual(['index.js']);
    expect(delivery.withheld).toMatchObject({ refused: false });
    expect(delivery.withheld?.patch).toContain('diff --git a/.github/workflows/release.yml');
    expect(refCalls(emu)).toEqual(['git/create-ref 201']);
    expect(emu.calls.filter((c) => c.operationId === 'graphql')).toHaveLength(1);
    // The work tree keeps them: later steps (and the record) see what the model wrote.
    expect(git(scratch.dir, 'status', '--porcelain').split('\n')).toEqual([
      'M .github/workflows/ci.yml', // (trimmed: ` M`, changed in the work tree, not staged)
      '?? .github/workflows/release.yml',
    ]);
  });

  it('keeps work that is nothing but workflow files as a patch, naming the rule, with no branch left', async () => {
    const { emu, request } = await deliveryFor({ workflowsPermission: false }, { mayChangeWorkflows: false });
    writeFileSync(join(scratch.dir, '.github/workflows/release.yml'), 'name: release\n');
    const delivery = await deliver(request);
    expect(delivery.pr).toBeUndefined();
    expect(delivery.refusal?.rule).toBe(
      'the token may not create or change workflow files (.github/workflows/release.yml)',
    );
    expect(delivery.patch).toContain('+name: release');
    expect(refCalls(emu)).toEqual([]);
    expect(git(scratch.origin, 'branch', '--list', 'agent/*')).toBe('');
  });
});
