// The model's last look before delivery: the files that will be committed, with their line counts, and what
// will be held back, in one compact message. It is shown on every run that changed something, as soon as
// the model completes its last item, so that the turn it takes anyway (its summary) is the one in which it
// removes strays or lets the list stand.
import type { DeliveryList } from '../agent/options.js';
import type { GitRepo, TreeChange } from '../git/repo.js';
import { holdBack, type NewFile } from './held-back.js';
import { isWorkflowFile } from './workflow-files.js';

/** How many files the review lists by name (the rest are counted). */
export const MAX_REVIEW_FILES = 100;

const STATUS = { A: 'new', D: 'deleted', M: 'changed', T: 'type changed' } as const;

/**
 * What delivery would commit now, as our own git sees it (everything staged, then what is held back left
 * out), or undefined when the run changed nothing. Stages the work tree in our own git directory: call it
 * only once every git directory of the workspace was disarmed (staging a nested repository reads its refs).
 */
export async function deliveryReview(
  git: GitRepo,
  startSha: string,
  { lockedWorkflows = false }: { lockedWorkflows?: boolean } = {},
): Promise<(DeliveryList & { committed: TreeChange[] }) | undefined> {
  const changes = await stageWork(git, startSha);
  if (changes.length === 0) return undefined;
  const { heldBack, committed: delivered, workflows } = await heldBackOf(git, changes, { lockedWorkflows });
  const counts = await git.lineCounts(startSha, { staged: true });
  const lines = delivered.slice(0, MAX_REVIEW_FILES).map((change) => {
    const { additions = 0, deletions = 0 } = counts.get(change.path) ?? {};
    return `- ${change.path} (${STATUS[change.status] ?? 'changed'}, +${additions} −${deletions})`;
  });
  if (delivered.length > MAX_REVIEW_FILES)
    lines.push(`- … and ${delivered.length - MAX_REVIEW_FILES} more files`);
  const text = [
    `Before delivery, the files that will be committed (${delivered.length}):`,
    lines.join('\n') || '- (none)',
    ...(heldBack.length
      ? ['Held back, never committed:', heldBack.map(({ path, why }) => `- ${path}: ${why}`).join('\n')]
      : []),
    ...(workflows.length
      ? [
          'Left out of the pull request, because this token may not create or change workflow files (their change is attached to it as a patch):',
          workflows.map((path) => `- ${path}`).join('\n'),
        ]
      : []),
    'If a file does not belong to the task (a build output, a cache, a scratch file), delete it now; otherwise the list is right and you can finish.',
  ].join('\n');
  return { text, paths: delivered.map((change) => change.path), committed: delivered };
}

/**
 * What holdBack makes of a change (its new files, each new link with its target, and the tracked paths it
 * makes links; targets read from our git), the workflow files it touches when the token may not change
 * them (`lockedWorkflows`), and the changes left to commit.
 */
export async function heldBackOf(
  git: GitRepo,
  changes: readonly TreeChange[],
  { lockedWorkflows = false }: { lockedWorkflows?: boolean } = {},
): Promise<ReturnType<typeof holdBack> & { committed: TreeChange[]; workflows: string[] }> {
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

/** Stages the whole work tree in our own git; what the staged tree changes since `startSha`. */
export async function stageWork(git: GitRepo, startSha: string): Promise<TreeChange[]> {
  await git.stageAll();
  return await git.changesBetween(startSha, await git.stagedTree());
}
