// deliver() against the GitHub emulator (its refs and API commits written into a real bare origin, whose
// pre-receive hook plays GitHub's push rules) with our real git, run as the job runs it, by the delivery
// session: workflow files the token may not change cost only themselves.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import type { DeliveryRequest } from '../../src/delivery/deliver.js';
import { DeliverySession } from '../../src/delivery/session.js';
import { refuseWorkflowPushes } from '../support/github/origin-rules.js';
import { BRANCH, useDeliveryWorld } from '../support/delivery-fixture.js';
import { git } from '../support/git-fixture.js';

const { scratch: scratchOf, deliveryFor, refCalls } = useDeliveryWorld('deliver-');
let scratch: ReturnType<typeof scratchOf>;
beforeEach(() => {
  scratch = scratchOf();
});

/** The delivery as the job runs it: one session, landed. */
const deliver = (request: DeliveryRequest) => new DeliverySession(request).land(request);

/** The model's work: index.js fixed, and a new workflow and a changed one. */
function changeCodeAndWorkflows(): void {
  writeFileSync(join(scratch.dir, 'index.js'), 'module.exports = 2;\n');
  writeFileSync(join(scratch.dir, '.github/workflows/ci.yml'), 'name: ci\non: push\n');
  writeFileSync(join(scratch.dir, '.github/workflows/release.yml'), 'name: release\n');
}

/** The files the origin's branch changes from main. */
const onBranch = (branch = BRANCH) =>
  git(scratch.origin, 'diff', '--name-only', `main...${branch}`).split('\n').filter(Boolean);

describe('deliver', () => {
  it('delivers the rest when the API refuses a workflow file, with the workflow part kept as a patch', async () => {
    const { emu, request } = await deliveryFor({ appBot: 'todo-app[bot]', workflowsPermission: false });
    changeCodeAndWorkflows();
    const delivery = await deliver(request);
    expect(delivery.pr).toMatchObject({ number: expect.any(Number), reused: false });
    expect(onBranch()).toEqual(['index.js']);
    expect(delivery.workflowPatch).toMatchObject({
      paths: ['.github/workflows/ci.yml', '.github/workflows/release.yml'],
      refused: true,
      refusal: {
        rule: 'the token may not create or change workflow files (.github/workflows/ci.yml, .github/workflows/release.yml)',
      },
    });
    expect(delivery.workflowPatch?.patch).toContain('+on: push');
    expect(delivery.workflowPatch?.patch).toContain('+name: release');
    expect(delivery.workflowPatch?.patch).not.toContain('index.js');
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
    expect(delivery.workflowPatch?.paths).toEqual([
      '.github/workflows/ci.yml',
      '.github/workflows/release.yml',
    ]);
    expect(emu.violations).toEqual([]);
  });

  it('leaves the workflow files out up front when the token is known not to have the permission', async () => {
    // The workflow's own token: GitHub's answer to nothing is needed, no commit or push touches them.
    const { emu, request } = await deliveryFor({ workflowsPermission: false }, { mayChangeWorkflows: false });
    changeCodeAndWorkflows();
    const delivery = await deliver(request);
    expect(onBranch()).toEqual(['index.js']);
    expect(delivery.workflowPatch).toMatchObject({ refused: false });
    expect(delivery.workflowPatch?.patch).toContain('diff --git a/.github/workflows/release.yml');
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
