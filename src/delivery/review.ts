// The model's last look before delivery: the files that will be committed, with their line counts, and what
// will be held back. It gets one round to remove strays or to say the list is right.
import type { GitRepo } from '../git/repo.js';
import { holdBack } from './held-back.js';

/** How many files the review lists by name. */
const MAX_REVIEW_FILES = 200;
/** A change of more files than this is always reviewed; a smaller one only when something is held back. */
const REVIEW_ABOVE_FILES = 25;

/**
 * The review text, or undefined when the list needs no second look: nothing to deliver, or a small change
 * with nothing held back (a look that only costs a turn).
 */
export async function deliveryReview(git: GitRepo, startSha: string): Promise<string | undefined> {
  await git.stageAll();
  const changes = await git.changesBetween(startSha, await git.stagedTree());
  if (changes.length === 0) return undefined;
  const { heldBack, heldPaths } = holdBack(changes.filter((c) => c.status === 'A'));
  const held = new Set(heldPaths);
  const counts = await git.lineCounts(startSha, { staged: true });
  const delivered = changes.filter((change) => !held.has(change.path));
  if (heldBack.length === 0 && delivered.length <= REVIEW_ABOVE_FILES) return undefined;
  const STATUS = { A: 'new', D: 'deleted', M: 'changed', T: 'type changed' } as const;
  const lines = delivered.slice(0, MAX_REVIEW_FILES).map((change) => {
    const { additions = 0, deletions = 0 } = counts.get(change.path) ?? {};
    return `- ${change.path} (${STATUS[change.status] ?? 'changed'}, +${additions} −${deletions})`;
  });
  if (delivered.length > MAX_REVIEW_FILES)
    lines.push(`- … and ${delivered.length - MAX_REVIEW_FILES} more files`);
  const heldLines = heldBack.map(({ path, why }) => `- ${path}: ${why}`);
  return [
    `Every item is completed. Before the work is delivered, check the files that will be committed (${delivered.length}):`,
    lines.join('\n') || '- (none)',
    ...(heldLines.length ? ['These are held back and will not be committed:', heldLines.join('\n')] : []),
    'If a file does not belong to the task (a build output, a cache, a scratch file), remove it now; otherwise say that the list is right. This is your last turn before delivery.',
  ].join('\n\n');
}
