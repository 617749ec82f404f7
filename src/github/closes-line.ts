// The line by which a pull request this action opens closes its issue, and the issue a pull request's
// description closes, read back as GitHub reads closing keywords (a contributor writes `Fixes #5` as well).
import { closingReferences } from '../text/inert-markdown.js';

/** The line by which a pull request closes its issue; `closedBy` reads it back from a description. */
export function closesLine(issue: number): string {
  return `Closes #${issue}`;
}

/**
 * The first issue of this repository (`owner/repo`) a description closes: `#N`, or `owner/repo#N` naming this
 * repository (in any case, as GitHub's names are). An issue of another repository is not ours to close.
 */
export function closedBy(body: string, repository: string): number | undefined {
  const ours = repository.toLowerCase();
  return closingReferences(body).find((ref) => ref.repo === undefined || ref.repo.toLowerCase() === ours)
    ?.number;
}
