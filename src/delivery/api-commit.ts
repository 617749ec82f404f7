// The commit through GitHub's API: the local commit's change replayed as one createCommitOnBranch, which
// GitHub signs. What the API cannot express (modes, links, submodules, very large files) says so, and the
// caller pushes with git instead.
import type { GitRepo, TreeChange } from '../git/repo.js';
import type { GitHubApi } from '../github/api/github-api.js';

/**
 * GitHub documents no size limit for createCommitOnBranch (its 100 MB per file is `git push`'s limit), so
 * these numbers are ours. Users of the mutation report commits of about 40 MB of files refused, and the
 * files travel base64-encoded (4/3 larger) in one JSON request, so the whole change stays at 30 MB: a
 * larger one goes by git at once rather than after a refused request and a branch made for nothing.
 */
export const MAX_API_FILE_BYTES = 25 * 1024 * 1024;
export const MAX_API_TOTAL_BYTES = 30 * 1024 * 1024;

export type ApiOutcome =
  { landed: true; branch: string; sha: string } | { landed: false; why: string; refusedBy?: string };

/** Why the API cannot carry this change, or undefined when it can. */
export function inexpressible(changes: readonly TreeChange[]): string | undefined {
  const named = (change: TreeChange, what: string) => `\`${change.path}\` is ${what}`;
  let total = 0;
  for (const change of changes) {
    if (change.status === 'D') continue;
    if (change.mode === '120000' || change.oldMode === '120000') return named(change, 'a symbolic link');
    if (change.mode === '160000' || change.oldMode === '160000') return named(change, 'a submodule');
    if (change.mode === '100755' || change.oldMode === '100755')
      return named(change, 'executable (its mode bit)');
    if (change.size > MAX_API_FILE_BYTES)
      return named(change, `over the ${MAX_API_FILE_BYTES / 2 ** 20} MB a file may have through the API`);
    total += change.size;
  }
  if (total > MAX_API_TOTAL_BYTES)
    return `the change is over the ${MAX_API_TOTAL_BYTES / 2 ** 20} MB one API commit may carry`;
  return undefined;
}

export interface ApiCommitRequest {
  git: GitRepo;
  api: GitHubApi;
  branch: string;
  /** The remote commit the new one goes on: the branch's tip, or the start for a new branch. */
  parent: string;
  /**
   * The branch on the remote: `existing` (at `parent`: earlier work, or claimed by this delivery), or `new`,
   * made here by `makeBranch` (a fresh name when taken). A branch made for the delivery belongs to its
   * claim (branch-claim.ts), which deletes it when the work does not land there.
   */
  remote: 'existing' | 'new';
  makeBranch: (name: string, sha: string) => Promise<string | undefined>;
  message: string;
}

/**
 * Has the branch made when new (a fresh name when taken), commits the change from `parent` to HEAD through
 * the API, then moves the local branch onto GitHub's commit so that a later run continues from it.
 */
export async function commitThroughApi(request: ApiCommitRequest): Promise<ApiOutcome> {
  const { git, api, parent } = request;
  const changes = await git.changesBetween(parent, 'HEAD');
  if (changes.length === 0) return { landed: false, why: 'the commits add up to no change' };
  const cannot = inexpressible(changes);
  if (cannot) return { landed: false, why: cannot };
  const branch = request.remote === 'new' ? await request.makeBranch(request.branch, parent) : request.branch;
  if (!branch)
    return { landed: false, why: `the branch names \`${request.branch}\` and its fresh variants are taken` };
  const added = changes.filter((c) => c.status !== 'D');
  const contents = await git.blobs(added.map((change) => change.blob));
  const additions = added.map((change, i) => ({
    path: change.path,
    contents: contents[i]!.toString('base64'),
  }));
  const deletions = changes.filter((c) => c.status === 'D').map(({ path }) => ({ path }));
  const [headline = '', ...rest] = request.message.split('\n');
  const body = rest.join('\n').trim();
  await api.refs.createCommitOnBranch({
    branch,
    headline,
    ...(body ? { body } : {}),
    additions,
    deletions,
    expectedHeadOid: parent,
  });
  // The local branch moves onto GitHub's commit (same files): what a later `continue` fetches is what we hold.
  const sha = await git.adoptRemoteBranch(branch);
  return { landed: true, branch, sha };
}
