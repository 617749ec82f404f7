// The github tool's answers are compact text: each person's words cleaned as the thread is (what a reader
// does not see is gone) and clipped, pages said plainly.
import { stripHidden } from '../thread/hidden-text.js';

export const PER_PAGE = 30;
const MAX_TEXT_CHARS = 4_000;

/** Text someone wrote on GitHub, as a reader sees it, on one clipped block. */
export function cleaned(text: string | null | undefined, max = MAX_TEXT_CHARS): string {
  const shown = stripHidden(text ?? '').trim();
  if (shown === '') return '(empty)';
  return shown.length <= max ? shown : `${shown.slice(0, max)}\n[… ${shown.length - max} characters cut]`;
}

/** The note that ends a paged answer: where this page sits and how to read on. */
export function pageNote(page: number, shown: number, more: boolean, what: string): string {
  if (!more && page === 1) return '';
  const next = more ? `; read on with page=${page + 1}` : '';
  return `\n[page ${page}: ${shown} ${what}${next}]`;
}

/** Whether a GitHub list answer has a next page (its Link header names one). */
export function hasNext(headers: { link?: string | undefined }): boolean {
  return /rel="next"/.test(headers.link ?? '');
}
