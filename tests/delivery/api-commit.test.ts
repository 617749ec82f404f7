// The commit through GitHub's API against the emulator (its API commits written into a real bare origin) with
// our real git: the local commits' change replayed as one signed commit, the local branch moved onto it, and
// what the API cannot carry said before any request.
import { rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  commitThroughApi,
  inexpressible,
  MAX_API_FILE_BYTES,
  type ApiCommitRequest,
} from '../../src/delivery/api-commit.js';
import type { TreeChange } from '../../src/git/repo.js';
import { BRANCH, useDeliveryWorld } from '../support/delivery-fixture.js';
import { commitFiles, git } from '../support/git-fixture.js';

const { scratch, deliveryFor } = useDeliveryWorld('api-commit-');

/** The request for the clone's work since the start, onto a new branch made through the API. */
async function commitRequest(options: Partial<ApiCommitRequest> = {}) {
  const { emu, request } = await deliveryFor({});
  const made: string[] = [];
  const commit: ApiCommitRequest = {
    git: request.git,
    api: request.api,
    branch: BRANCH,
    parent: request.startSha,
    remote: 'new',
    makeBranch: async (name, sha) => {
      made.push(name);
      return (await request.api.refs.createBranch(name, sha)) === 'created' ? name : undefined;
    },
    message: 'Fix index.js\n\nThe longer story.',
    ...options,
  };
  return { emu, commit, made };
}

/** The work: two local commits that change index.js, add a file and delete the workflow. */
function work(): void {
  const { dir } = scratch();
  commitFiles(dir, { 'index.js': 'module.exports = 2;\n' }, 'one');
  rmSync(join(dir, '.github/workflows/ci.yml'));
  commitFiles(dir, { 'notes.md': '# Notes\n' }, 'two');
}

describe('commitThroughApi', () => {
  it('replays the commits as one signed commit on a new branch, and moves the local branch onto it', async () => {
    const { emu, commit, made } = await commitRequest();
    work();
    const outcome = await commitThroughApi(commit);
    expect(outcome).toEqual({ landed: true, branch: BRANCH, sha: expect.stringMatching(/^[0-9a-f]{40}$/) });
    expect(made).toEqual([BRANCH]);
    expect(emu.state.apiCommits).toEqual([
      { oid: (outcome as { sha: string }).sha, branch: BRANCH, verified: true },
    ]);
    const { origin, dir } = scratch();
    expect(git(origin, 'diff', '--name-status', `main..${BRANCH}`).split('\n')).toEqual([
      'D\t.github/workflows/ci.yml',
      'M\tindex.js',
      'A\tnotes.md',
    ]);
    expect(git(origin, 'log', '-1', '--format=%B', BRANCH).trim()).toBe('Fix index.js\n\nThe longer story.');
    expect(git(dir, 'rev-parse', 'HEAD')).toBe((outcome as { sha: string }).sha);
    expect(emu.violations).toEqual([]);
  });

  it('commits onto an existing branch at the parent, making none', async () => {
    const { emu, commit, made } = await commitRequest();
    git(scratch().dir, 'push', '-q', 'origin', `HEAD:refs/heads/${BRANCH}`);
    work();
    expect(await commitThroughApi({ ...commit, remote: 'existing' })).toMatchObject({ landed: true });
    expect(made).toEqual([]);
    expect(emu.state.apiCommits).toHaveLength(1);
    expect(emu.violations).toEqual([]);
  });

  it('lands nothing, and asks GitHub nothing, for commits that add up to no change or a change it cannot carry', async () => {
    const { emu, commit, made } = await commitRequest();
    const { dir } = scratch();
    commitFiles(dir, { 'index.js': 'module.exports = 2;\n' }, 'there');
    commitFiles(dir, { 'index.js': 'module.exports = 1;\n' }, 'and back');
    expect(await commitThroughApi(commit)).toEqual({ landed: false, why: 'the commits add up to no change' });
    symlinkSync('index.js', join(dir, 'link.js'));
    commitFiles(dir, {}, 'a link');
    expect(await commitThroughApi(commit)).toEqual({ landed: false, why: '`link.js` is a symbolic link' });
    expect(made).toEqual([]);
    expect(emu.writes()).toEqual([]);
  });

  it('says so when no name is left for the branch', async () => {
    const { emu, commit } = await commitRequest({ makeBranch: async () => undefined });
    work();
    expect(await commitThroughApi(commit)).toEqual({
      landed: false,
      why: `the branch names \`${BRANCH}\` and its fresh variants are taken`,
    });
    expect(emu.state.apiCommits).toEqual([]);
  });
});

describe('inexpressible', () => {
  const change = (over: Partial<TreeChange>): TreeChange =>
    ({
      path: 'a',
      status: 'M',
      mode: '100644',
      oldMode: '100644',
      size: 10,
      blob: 'b',
      ...over,
    }) as TreeChange;

  it('names the first file the API cannot carry: a link, a submodule, an executable, or one too large', () => {
    expect(inexpressible([change({})])).toBeUndefined();
    expect(inexpressible([change({ path: 's', mode: '160000' })])).toBe('`s` is a submodule');
    expect(inexpressible([change({ path: 'x', oldMode: '100755' })])).toBe(
      '`x` is executable (its mode bit)',
    );
    expect(inexpressible([change({ path: 'big', size: MAX_API_FILE_BYTES + 1 })])).toBe(
      '`big` is over the 25 MB a file may have through the API',
    );
    // A deleted file is carried whatever it was.
    expect(inexpressible([change({ status: 'D', mode: '120000', size: 1e9 })])).toBeUndefined();
  });

  it('refuses a change whose files add up to more than one commit may carry', () => {
    const parts = [1, 2].map((n) => change({ path: `f${n}`, size: 16 * 1024 * 1024 }));
    expect(inexpressible(parts)).toBe('the change is over the 30 MB one API commit may carry');
  });
});
