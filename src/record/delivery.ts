// What became of a run's work, for the record: read back from git after the delivery, so that the record says
// what the remote got, what stayed behind, and, when nothing could be pushed, holds the work as a patch.
import type { Delivery } from '../delivery/deliver.js';
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
  const heldBack = await git.uncommitted().catch(() => []);
  const note = [delivery.note, error].filter(Boolean).join(' ');
  const record: RecordDelivery = {
    committed,
    heldBack,
    ...(delivery.pushedBranch ? { pushed: delivery.pushedBranch } : {}),
    ...(delivery.pr ? { pr: { number: delivery.pr.number, url: delivery.pr.url } } : {}),
    ...(note ? { note } : {}),
  };
  if (delivery.pushedBranch || committed.length === 0) return record;
  const patch = await git.patchSince(startSha).catch((failure: Error) => `(no patch: ${failure.message})`);
  const cut =
    patch.length > MAX_PATCH_CHARS
      ? `${patch.slice(0, MAX_PATCH_CHARS)}\n… (cut at ${MAX_PATCH_CHARS} characters)\n`
      : patch;
  const refusal =
    delivery.refusal && `GitHub refused it: ${delivery.refusal.rule}. ${delivery.refusal.advice}`;
  const reason = error ?? refusal ?? delivery.note ?? 'the work was not pushed';
  return { ...record, refused: { reason, patch: cut } };
}
