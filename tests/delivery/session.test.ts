// The delivery session against the GitHub emulator and our real git: the last look claims the branch, the
// landing keeps it or gives it up, and abandon() deletes a claim the work never reached, once.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DeliverySession } from '../../src/delivery/session.js';
import { BRANCH, useDeliveryWorld } from '../support/delivery-fixture.js';
import { git } from '../support/git-fixture.js';

const { scratch, deliveryFor, refCalls } = useDeliveryWorld('session-');

const fixIndex = () => writeFileSync(join(scratch().dir, 'index.js'), 'module.exports = 2;\n');
const branchesOnOrigin = () => git(scratch().origin, 'branch', '--list', 'agent/*').trim();

describe('DeliverySession', () => {
  it('previews what would be committed and claims the branch; a refused landing deletes it, once', async () => {
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
    fixIndex();
    const session = new DeliverySession(request);
    const look = await session.preview();
    expect(look?.paths).toEqual(['index.js']);
    expect(look?.text).toContain('- index.js (changed, +1 −1)');
    const delivery = await session.land(request);
    expect(delivery.refusal?.rule).toContain('Changes must be made through a pull request');
    expect(delivery.patch).toContain('+module.exports = 2;');
    // Made once at the last look, deleted once (a second DELETE would be answered 422).
    expect(refCalls(emu)).toEqual(['git/create-ref 201', 'git/delete-ref 204']);
    await session.abandon();
    expect(refCalls(emu)).toHaveLength(2);
    expect(branchesOnOrigin()).toBe('');
    expect(emu.violations).toEqual([]);
  });

  it('keeps the claimed branch once the work landed on it: abandon() after that deletes nothing', async () => {
    const { emu, request } = await deliveryFor({});
    fixIndex();
    const session = new DeliverySession(request);
    await session.preview();
    const delivery = await session.land(request);
    expect(delivery).toMatchObject({ pushedBranch: BRANCH, commit: { signed: true } });
    await session.abandon();
    expect(refCalls(emu)).toEqual(['git/create-ref 201']);
    expect(git(scratch().origin, 'diff', '--name-only', `main...${BRANCH}`)).toBe('index.js');
    expect(emu.violations).toEqual([]);
  });

  it('claims nothing when the run changed nothing, and deletes a claim the delivery never reached', async () => {
    const { emu, request } = await deliveryFor({});
    const idle = new DeliverySession(request);
    expect(await idle.preview()).toBeUndefined();
    await idle.abandon();
    expect(refCalls(emu)).toEqual([]);
    fixIndex();
    const broken = new DeliverySession(request);
    await broken.preview();
    // The job broke off before landing (its catch, or a plan): the branch made at the last look goes.
    await broken.abandon();
    await broken.abandon();
    expect(refCalls(emu)).toEqual(['git/create-ref 201', 'git/delete-ref 204']);
    expect(branchesOnOrigin()).toBe('');
  });

  describe('forPlan: the session a kind of run gets (run-kinds.ts)', () => {
    const plan = { base: 'main', task: 'Fix index.js', branch: BRANCH };
    it('claims a new branch of ours and lands a signed commit on it when signed commits are on', async () => {
      const { emu, request } = await deliveryFor({});
      fixIndex();
      const { git, api, startSha } = request;
      const session = DeliverySession.forPlan(
        { ...plan, kind: 'fresh', continuesBranch: false },
        { git, api, startSha, signedCommits: true },
      );
      await session.preview();
      expect(await session.land(request)).toMatchObject({ pushedBranch: BRANCH, commit: { signed: true } });
      // The branch was claimed at the last look, and the work landed on it.
      expect(refCalls(emu)).toEqual(['git/create-ref 201']);
    });

    it('lands a signed commit on a continued branch of ours, which exists: nothing to claim', async () => {
      const { emu, request } = await deliveryFor({});
      git(scratch().dir, 'push', '--quiet', 'origin', `HEAD:refs/heads/${BRANCH}`);
      fixIndex();
      const { git: repo, api, startSha } = request;
      const session = DeliverySession.forPlan(
        { ...plan, kind: 'pull-request', continuesBranch: true },
        { git: repo, api, startSha, signedCommits: true },
      );
      await session.preview();
      const delivery = await session.land({ ...request, openPull: false });
      expect(delivery).toMatchObject({ pushedBranch: BRANCH, commit: { signed: true } });
      expect(refCalls(emu)).toEqual([]);
      expect(git(scratch().origin, 'rev-parse', BRANCH)).toBe(delivery.commit?.sha);
    });

    it.each([
      { why: 'signed commits are off', kind: 'fresh' as const, signedCommits: false },
      { why: "the work goes back to a fork's pull request", kind: 'fork' as const, signedCommits: true },
    ])('claims nothing and pushes with git when $why', async ({ kind, signedCommits }) => {
      const { emu, request } = await deliveryFor({});
      fixIndex();
      const { git, api, startSha } = request;
      const fork = {
        number: 1,
        repo: 'contributor/hello-world',
        ref: 'feature',
        author: 'contributor',
        maintainerCanModify: false,
        delivery: 'pull-request' as const,
      };
      const session = DeliverySession.forPlan(
        kind === 'fork'
          ? { ...plan, kind, continuesBranch: false, fork }
          : { ...plan, kind, continuesBranch: false },
        { git, api, startSha, signedCommits },
      );
      await session.preview();
      expect(await session.land(request)).toMatchObject({ pushedBranch: BRANCH, commit: { signed: false } });
      expect(refCalls(emu)).toEqual([]);
    });
  });
});
