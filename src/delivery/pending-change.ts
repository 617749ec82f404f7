// What would be committed now: the whole work tree staged in our own git directory, then what is held back
// sorted out of it. The model's last look (messages/review.ts, through the session) and the delivery (deliver.ts)
// both ask this module, so that the list the model is shown is the list that is committed.
import type { GitRepo, TreeChange } from '../git/repo.js';
import { holdBack, type NewFile } from './held-back.js';
import { isWorkflowFile } from './workflow-files.js';

export type PendingChange = ReturnType<typeof holdBack> & {
  /** Everything the staged tree changes since the start. */
  changes: TreeChange[];
  /** What is left to commit once held back paths and workflow files (their patch) are out. */
  committed: TreeChange[];
  /** Workflow files the token may not change: left out, their change kept as a patch. */
  workflows: string[];
};

/**
 * Stages the work tree and sorts what is held back out of what is committed (the index is left as staged:
 * the delivery takes the held-back paths out of it, the last look only lists them). Call it only once every
 * git directory of the workspace was disarmed: staging a nested repository reads its refs.
 */
export async function pendingChange(
  git: GitRepo,
  startSha: string,
  { lockedWorkflows = false }: { lockedWorkflows?: boolean } = {},
): Promise<PendingChange> {
  await git.stageAll();
  const changes = await git.changesBetween(startSha, await git.stagedTree());
  return { changes, ...(await heldBackOf(git, changes, { lockedWorkflows })) };
}

/**
 * What holdBack makes of a change (its new files, each new link with its target, and the tracked paths it
 * makes links; targets read from our git), the workflow files it touches when the token may not change
 * them (`lockedWorkflows`), and the changes left to commit.
 */
async function heldBackOf(
  git: GitRepo,
  changes: readonly TreeChange[],
  { lockedWorkflows = false }: { lockedWorkflows?: boolean } = {},
): Promise<Omit<PendingChange, 'changes'>> {
  const links = changes.filter((change) => change.status !== 'D' && change.mode === '120000');
  const targets = await git.blobs(links.map((change) => change.blob));
  const linkOf = new Map(links.map((change, i) => [change.path, targets[i]!.toString('utf8')]));
  const added: NewFile[] = changes
    .filter((change) => change.status === 'A')
    .map(({ path, size }) => {
      const link = linkOf.get(path);
      return link === undefined ? { path, size } : { path, size, link };
    });
  const changedLinks = changes
    .filter((change) => change.status !== 'A' && linkOf.has(change.path))
    .map(({ path }) => ({ path, link: linkOf.get(path)! }));
  const sorted = holdBack(added, changedLinks);
  const held = new Set([...sorted.heldPaths, ...sorted.restored]);
  const workflows = lockedWorkflows
    ? changes
        .filter((change) => !held.has(change.path) && isWorkflowFile(change.path))
        .map(({ path }) => path)
    : [];
  for (const path of workflows) held.add(path);
  return { ...sorted, workflows, committed: changes.filter((change) => !held.has(change.path)) };
}
