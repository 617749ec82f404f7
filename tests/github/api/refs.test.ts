// Refs (src/github/api/refs.ts) against the GitHub emulator: the default branch, branches made and deleted, and
// the commit GitHub signs.
import { describe, expect, it } from 'vitest';
import { git, originBranch, useClonedOrigin } from '../../support/git-fixture.js';
import { useApiPerTest } from '../../support/github/per-test.js';

const apiFor = useApiPerTest();
const current = useClonedOrigin('api-refs-', { 'hello.py': 'print("hi")\n' });
const onOrigin = (name: string) => originBranch(current(), name);

describe('defaultBranch', () => {
  it('reads the default branch', async () => {
    const { api } = await apiFor({ defaultBranch: 'trunk' });
    expect(await api.refs.defaultBranch()).toBe('trunk');
  });
});

describe('branches', () => {
  it('creates a branch at a commit, and says so when the name is taken rather than moving it', async () => {
    const { api, emu } = await apiFor({ remoteDir: current().origin });
    const main = onOrigin('main')!;
    expect(await api.refs.createBranch('agent/x', main)).toBe('created');
    expect(onOrigin('agent/x')).toBe(main);
    expect(await api.refs.createBranch('main', onOrigin('agent/x')!)).toBe('exists');
    expect(onOrigin('main')).toBe(main);
    expect(emu.violations).toEqual([]);
  });

  it('passes on a refusal that is not a taken name (a commit GitHub does not have)', async () => {
    const { api } = await apiFor({ remoteDir: current().origin });
    await expect(api.refs.createBranch('agent/y', 'f'.repeat(40))).rejects.toThrow(/Object does not exist/);
    expect(onOrigin('agent/y')).toBeUndefined();
  });

  it('deletes a branch, and a branch already gone is no error', async () => {
    const { api, emu } = await apiFor({ remoteDir: current().origin });
    await api.refs.createBranch('agent/x', onOrigin('main')!);
    await api.refs.deleteBranch('agent/x');
    expect(onOrigin('agent/x')).toBeUndefined();
    await api.refs.deleteBranch('agent/x');
    expect(emu.writes().map((call) => `${call.method} ${call.status}`)).toEqual([
      'POST 201',
      'DELETE 204',
      'DELETE 422',
    ]);
  });
});

describe('createCommitOnBranch', () => {
  it('appends one signed commit with its headline, body, additions and deletions to the branch', async () => {
    const { api, emu } = await apiFor({ remoteDir: current().origin });
    const main = onOrigin('main')!;
    await api.refs.createBranch('agent/x', main);
    const made = await api.refs.createCommitOnBranch({
      branch: 'agent/x',
      headline: 'Say hello twice',
      body: 'Closes #1',
      additions: [
        { path: 'twice.py', contents: Buffer.from('print("hi")\nprint("hi")\n').toString('base64') },
      ],
      deletions: [{ path: 'hello.py' }],
      expectedHeadOid: main,
    });
    expect(onOrigin('agent/x')).toBe(made.oid);
    expect(git(current().origin, 'log', '-1', '--format=%s%n%b', made.oid)).toBe(
      'Say hello twice\nCloses #1',
    );
    expect(git(current().origin, 'ls-tree', '--name-only', made.oid)).toBe('twice.py');
    expect(emu.state.apiCommits).toEqual([expect.objectContaining({ oid: made.oid, verified: true })]);
    expect(emu.violations).toEqual([]);
  });

  it('fails rather than overwrite a branch that moved on since the commit expected', async () => {
    const { api } = await apiFor({ remoteDir: current().origin });
    const main = onOrigin('main')!;
    await api.refs.createBranch('agent/x', main);
    const first = await api.refs.createCommitOnBranch({
      branch: 'agent/x',
      headline: 'One',
      additions: [{ path: 'one.txt', contents: Buffer.from('1\n').toString('base64') }],
      deletions: [],
      expectedHeadOid: main,
    });
    await expect(
      api.refs.createCommitOnBranch({
        branch: 'agent/x',
        headline: 'Two',
        additions: [{ path: 'two.txt', contents: Buffer.from('2\n').toString('base64') }],
        deletions: [],
        expectedHeadOid: main,
      }),
    ).rejects.toThrow();
    expect(onOrigin('agent/x')).toBe(first.oid);
  });
});
