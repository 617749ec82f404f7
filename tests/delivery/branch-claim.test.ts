// BranchClaim against the GitHub emulator (its refs written into a real bare origin) and our real git.
import { describe, expect, it } from 'vitest';
import { BranchClaim, type BranchClaimOptions } from '../../src/delivery/branch-claim.js';
import { GitHubApi } from '../../src/github/api/github-api.js';
import { GitRepo, type TreeChange } from '../../src/git/repo.js';
import { git, GIT_ENV, originBranch, useClonedOrigin, WHO } from '../support/git-fixture.js';
import { TEST_REPO, TEST_TOKEN, useEmulatorPerTest } from '../support/github/per-test.js';

const startEmulator = useEmulatorPerTest();
const current = useClonedOrigin('branch-claim-', { 'hello.py': 'print("hi")\n' });
const BRANCH = 'agent/issue-1-7';
const change = (path: string, mode = '100644'): TreeChange => ({
  path,
  status: 'M',
  oldMode: '100644',
  mode,
  blob: '0'.repeat(40),
  size: 10,
});

async function claimFor(options: Partial<BranchClaimOptions> = {}) {
  const emu = await startEmulator({ remoteDir: current().origin });
  const api = new GitHubApi({ ...TEST_REPO, token: TEST_TOKEN, baseUrl: emu.url });
  const git = new GitRepo(current().dir, { env: GIT_ENV });
  const startSha = await git.head();
  const claim = new BranchClaim({
    git,
    api,
    branch: BRANCH,
    startSha,
    signed: true,
    continuesBranch: false,
    ...options,
  });
  return { emu, claim, startSha };
}

const onOrigin = (name = BRANCH) => originBranch(current(), name);

const refCalls = (emu: { calls: Array<{ operationId?: string }> }) =>
  emu.calls.filter((c) => c.operationId?.startsWith('git/')).map((c) => c.operationId);

describe('BranchClaim', () => {
  it('makes the branch at the start once, for a change the API can carry', async () => {
    const { emu, claim, startSha } = await claimFor();
    claim.claimEarly([change('hello.py')]);
    claim.claimEarly([change('hello.py')]);
    expect(await claim.claimed()).toBe(BRANCH);
    expect(onOrigin()).toBe(startSha);
    expect(refCalls(emu)).toEqual(['git/create-ref']);
    await claim.landed(BRANCH);
    await claim.drop(); // settled: the branch holds delivered work by now, it stays
    expect(onOrigin()).toBe(startSha);
    expect(refCalls(emu)).toEqual(['git/create-ref']);
    expect(emu.violations).toEqual([]);
  });

  it('claims nothing for a change the API cannot carry, unsigned commits, a continued branch, or no change', async () => {
    for (const [options, changes] of [
      [{}, [change('run.sh', '100755')]],
      [{}, [change('link', '120000')]],
      [{}, []],
      [{ signed: false }, [change('hello.py')]],
      [{ continuesBranch: true }, [change('hello.py')]],
    ] as const) {
      const { emu, claim } = await claimFor(options);
      claim.claimEarly(changes);
      expect(await claim.claimed()).toBeUndefined();
      expect(onOrigin()).toBeUndefined();
      expect(refCalls(emu)).toEqual([]);
    }
  });

  it('claims nothing when the name is taken on GitHub, or known to our checkout: delivery decides then', async () => {
    const taken = await claimFor();
    const tree = git(current().origin, 'rev-parse', 'main^{tree}');
    const other = git(current().origin, ...WHO, 'commit-tree', tree, '-m', 'Other work');
    git(current().origin, 'update-ref', `refs/heads/${BRANCH}`, other);
    taken.claim.claimEarly([change('hello.py')]);
    expect(await taken.claim.claimed()).toBeUndefined();
    await taken.claim.drop();
    expect(onOrigin()).toBe(other); // someone else's branch is never deleted

    git(current().dir, 'fetch', '--quiet', 'origin', `+refs/heads/${BRANCH}:refs/remotes/origin/${BRANCH}`);
    const known = await claimFor();
    known.claim.claimEarly([change('hello.py')]);
    expect(await known.claim.claimed()).toBeUndefined();
    expect(refCalls(known.emu)).toEqual([]);
  });

  it('deletes a claimed branch the work never reached, and claims nothing after', async () => {
    const { emu, claim } = await claimFor();
    claim.claimEarly([change('hello.py')]);
    expect(await claim.claimed()).toBe(BRANCH);
    await claim.drop();
    expect(onOrigin()).toBeUndefined();
    claim.claimEarly([change('hello.py')]);
    expect(refCalls(emu)).toEqual(['git/create-ref', 'git/delete-ref']);
    expect(emu.violations).toEqual([]);
  });

  it('makes a fresh name for the API commit when other work took the branch, and keeps it once the work is there', async () => {
    const { emu, claim, startSha } = await claimFor();
    const tree = git(current().origin, 'rev-parse', 'main^{tree}');
    const other = git(current().origin, ...WHO, 'commit-tree', tree, '-m', 'Other work');
    git(current().origin, 'update-ref', `refs/heads/${BRANCH}`, other);
    expect(await claim.fresh(BRANCH, startSha)).toBe(`${BRANCH}-2`);
    expect(await claim.claimed()).toBe(`${BRANCH}-2`);
    await claim.landed(`${BRANCH}-2`);
    await claim.drop();
    expect([onOrigin(), onOrigin(`${BRANCH}-2`)]).toEqual([other, startSha]);
    expect(refCalls(emu)).toEqual(['git/create-ref', 'git/create-ref']);
  });

  it('deletes a branch made for the work once, when the work landed elsewhere or not at all', async () => {
    const elsewhere = await claimFor();
    elsewhere.claim.claimEarly([change('hello.py')]);
    expect(await elsewhere.claim.claimed()).toBe(BRANCH);
    await elsewhere.claim.landed(`${BRANCH}-2`); // a push that had to move on to a fresh name
    await elsewhere.claim.drop();
    await elsewhere.claim.landed(BRANCH);
    expect(onOrigin()).toBeUndefined();
    expect(refCalls(elsewhere.emu)).toEqual(['git/create-ref', 'git/delete-ref']);

    const refused = await claimFor();
    await refused.claim.fresh(BRANCH, refused.startSha);
    await Promise.all([refused.claim.drop(), refused.claim.drop()]);
    expect(onOrigin()).toBeUndefined();
    expect(refCalls(refused.emu)).toEqual(['git/create-ref', 'git/delete-ref']);
    expect(refused.emu.violations).toEqual([]);
  });
});
