// What the github tool refuses before anything is asked of GitHub: a ref that is not a plain name, and a
// search that names another repository, organisation or user (refused, never quietly narrowed).
import { stripInvisible } from '../../text/invisible.js';

/** A branch, tag or commit name as git allows one, without the forms that mean something else (`..`, `@{`). */
const PLAIN_REF = /^[A-Za-z0-9_][A-Za-z0-9._/-]{0,254}$/;
/**
 * Search qualifiers that pick repositories (several `repo:` qualifiers widen a search rather than narrow it),
 * found anywhere in the query: which characters GitHub's parser takes as the end of a term (`"`, `)`, `,`,
 * `-`…) is not documented, so none is trusted to, and a word that merely ends in `repo:` is refused too.
 */
const SCOPE_QUALIFIER = /(repo|org|user|owner):/i;

export class RefusedRequest extends Error {
  override name = 'RefusedRequest';
}

export function plainRef(ref: string): string {
  const ok =
    PLAIN_REF.test(ref) &&
    !ref.includes('..') &&
    !ref.includes('//') &&
    !ref.endsWith('/') &&
    !ref.endsWith('.') &&
    !ref.endsWith('.lock');
  if (!ok)
    throw new RefusedRequest(
      `ref ${JSON.stringify(ref)} is not a plain branch, tag or commit name (letters, digits, ".", "_", "-" and "/")`,
    );
  return ref;
}

/** The query scoped to this repository; one that names another is refused with the qualifier it used. */
export function scopedQuery(query: string, repository: string): string {
  const trimmed = query.trim();
  if (trimmed === '') throw new RefusedRequest('search needs a query');
  // As a reader would read it: letters GitHub may fold (full-width `ｒｅｐｏ：`) folded, invisible ones gone.
  const scope = SCOPE_QUALIFIER.exec(stripInvisible(trimmed.normalize('NFKC')));
  if (scope)
    throw new RefusedRequest(
      `the query names a scope (${scope[1]!.toLowerCase()}:); the github tool searches ${repository} only, so leave the qualifier out`,
    );
  return `${trimmed} repo:${repository}`;
}
