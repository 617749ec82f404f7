// What became of a run's work, for the record: read back from git after the delivery, so that the record says
// what the remote got, what stayed behind, and, when nothing could be pushed, holds the work as a patch.
import type { Delivery } from '../delivery/deliver.js';
import { groupLeftOut } from '../delivery/held-back.js';
import type { GitRepo } from '../git/repo.js';
import type { RecordDelivery } from './run-record.js';

/** A patch longer than this is cut (the branch, or the runner's workspace, still has the work). */
const MAX_PATCH_CHARS = 1_000_000;

export async function deliveryRecord(
  git: GitRepo,
  startSha: string,
  delivery: Delivery,
  error?: string,
): Promise<RecordDelivery> {
  const committed = await git.changedSince(startSha).catch(() => []);
  const workflowPatch = delivery.workflowPatch;
  // Grouped as the last look and the pull request show them (a virtualenv once, not its every file).
  const known = [
    ...(delivery.heldBack ?? []),
    ...(workflowPatch?.paths.map((path) => ({
      path,
      why: 'a workflow file the token may not change',
      files: 1,
    })) ?? []),
  ];
  const heldBack = groupLeftOut(await git.uncommitted().catch(() => []), known);
  const note = [delivery.note, error].filter(Boolean).join(' ');
  // Our branch, or a contributor's (`owner/repo:branch`) on a fork's pull request.
  const pushed = delivery.pushedBranch ?? delivery.pushedToFork;
  const record: RecordDelivery = {
    committed,
    heldBack,
    ...(pushed ? { pushed } : {}),
    ...(delivery.pr ? { pr: { number: delivery.pr.number, url: delivery.pr.url } } : {}),
    ...(note ? { note } : {}),
    ...(workflowPatch
      ? {
          withheld: {
            paths: workflowPatch.paths,
            reason: `${workflowPatch.refusal.rule}. ${workflowPatch.refusal.advice}`,
            patch: cut(workflowPatch.patch),
          },
        }
      : {}),
  };
  if (pushed) return record;
  // Nothing committed: the patch delivery kept, if any (work that was only workflow files).
  if (committed.length === 0 && delivery.patch === undefined) return record;
  const patch =
    committed.length === 0
      ? delivery.patch!
      : await git.patchSince(startSha).catch((failure: Error) => `(no patch: ${failure.message})`);
  const refusal =
    delivery.refusal && `GitHub refused it: ${delivery.refusal.rule}. ${delivery.refusal.advice}`;
  const reason = error ?? refusal ?? delivery.note ?? 'the work was not pushed';
  return { ...record, refused: { reason, patch: cut(patch) } };
}

function cut(patch: string): string {
  return patch.length > MAX_PATCH_CHARS
    ? `${patch.slice(0, MAX_PATCH_CHARS)}\n… (cut at ${MAX_PATCH_CHARS} characters)\n`
    : patch;
}
