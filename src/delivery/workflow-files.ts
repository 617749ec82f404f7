// Files under .github/workflows/, which GitHub lets a token create, change or delete only with the workflows
// permission (the workflow's own GITHUB_TOKEN never has it): a push or an API commit that touches one is
// refused whole. So that they do not cost the rest of the work, delivery leaves them out of the commit, up
// front when the token's kind tells, else once GitHub refused them, and keeps their change as a patch
// attached to the pull request.
import type { GitRepo, TreeChange } from '../git/repo.js';
import { workflowRule, type Refusal } from './messages/refusal.js';

const WORKFLOWS = '.github/workflows/';

export function isWorkflowFile(path: string): boolean {
  return path.startsWith(WORKFLOWS);
}

/**
 * The workflow part of the work, left out of the commit: its files, the rule, and its change as a patch that
 * the pull request carries (the run record calls it `withheld`). Unlike a `HeldBack` path (held-back.ts),
 * which is never delivered, this is the model's work, delivered another way.
 */
export interface WorkflowPatch {
  paths: string[];
  refusal: Refusal;
  /** Redacted, `git apply`-able on the branch the work started from. */
  patch: string;
  /** GitHub refused them (else the token's kind told before trying). */
  refused: boolean;
}

/**
 * Takes the workflow files out of what is staged (they stay on disk): their change as staged against the
 * start, then the index as the start had them.
 */
export async function takeOutStagedWorkflows(
  git: GitRepo,
  startSha: string,
  paths: readonly string[],
  redact: (text: string) => string,
): Promise<WorkflowPatch> {
  const patch = redact(await git.patchSince(startSha, { staged: true, paths }));
  await git.restoreStaged(startSha, paths);
  return { paths: [...paths], refusal: workflowRule(paths), patch, refused: false };
}

/**
 * After GitHub refused a workflow file: the commits since the start made again as one, without the workflow
 * files (GitHub checks each commit pushed, so none may keep them). Undefined, and nothing changed, when the
 * work is nothing but workflow files, or touches none.
 */
export async function commitWithout(
  git: GitRepo,
  {
    startSha,
    commitMessage,
    redact,
  }: { startSha: string; commitMessage: string; redact: (text: string) => string },
): Promise<WorkflowPatch | undefined> {
  const changes: TreeChange[] = await git.changesBetween(startSha, 'HEAD');
  const paths = changes.filter((change) => isWorkflowFile(change.path)).map((change) => change.path);
  if (paths.length === 0 || paths.length === changes.length) return undefined;
  const patch = redact(await git.patchSince(startSha, { paths }));
  await git.uncommitSince(startSha);
  await git.restoreStaged(startSha, paths);
  await git.commitStaged(commitMessage);
  return { paths, refusal: workflowRule(paths), patch, refused: true };
}
