// The model's last look before delivery: the files that will be committed, with their line counts, and what
// will be held back, in one compact message. It is shown on every run that changed something, as soon as
// the model completes its last item, so that the turn it takes anyway (its summary) is the one in which it
// removes strays or lets the list stand. What it lists is worked out in pending-change.ts.
import type { DeliveryList } from '../../agent/options.js';
import type { GitRepo } from '../../git/repo.js';
import type { PendingChange } from '../pending-change.js';

/** How many files the review lists by name (the rest are counted). */
export const MAX_REVIEW_FILES = 100;

const STATUS = { A: 'new', D: 'deleted', M: 'changed', T: 'type changed' } as const;

/** The last look's message for a change as staged by pendingChange, or undefined when the run changed nothing. */
export async function deliveryReview(
  git: GitRepo,
  startSha: string,
  { changes, heldBack, committed: delivered, workflows }: PendingChange,
): Promise<DeliveryList | undefined> {
  if (changes.length === 0) return undefined;
  const files = await fileLines(git, startSha, delivered);
  const text = [
    `Before delivery, the files that will be committed (${delivered.length}):`,
    files || '- (none)',
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
  return { text, paths: delivered.map((change) => change.path) };
}

/**
 * One line per file that would be committed, with its status and lines added and removed (git's staged
 * counts against the start): what the last look lists, and what the turn after a compaction re-states.
 */
export async function fileLines(
  git: GitRepo,
  startSha: string,
  delivered: PendingChange['committed'],
): Promise<string> {
  const counts = await git.lineCounts(startSha, { staged: true });
  const lines = delivered.slice(0, MAX_REVIEW_FILES).map((change) => {
    const { additions = 0, deletions = 0 } = counts.get(change.path) ?? {};
    return `- ${change.path} (${STATUS[change.status] ?? 'changed'}, +${additions} −${deletions})`;
  });
  if (delivered.length > MAX_REVIEW_FILES)
    lines.push(`- … and ${delivered.length - MAX_REVIEW_FILES} more files`);
  return lines.join('\n');
}
