// Characters a reader never sees but a model reads: the one list, used for issue text and todo text alike.

/**
 * Characters that render as nothing (or only reorder what is around them): C0 and C1 controls other than tab
 * and line breaks, the soft hyphen, zero-width and joiner characters, bidi marks, embeddings, overrides and
 * isolates, invisible operators, fillers, variation selectors and tag characters (both can spell out a hidden
 * message letter by letter), the byte order mark and annotation marks.
 */
const INVISIBLE =
  // eslint-disable-next-line no-misleading-character-class, no-control-regex -- listed one by one, on purpose
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F\u00AD\u034F\u061C\u115F\u1160\u17B4\u17B5\u180B-\u180F\u200B-\u200F\u202A-\u202E\u2060-\u206F\u3164\uFE00-\uFE0F\uFEFF\uFFA0\uFFF9-\uFFFB]|[\u{E0000}-\u{E007F}\u{E0100}-\u{E01EF}\u{1D173}-\u{1D17A}]/gu;

/** The text without its invisible characters (tab, line feed and carriage return stay). */
export function stripInvisible(text: string): string {
  return text.replace(INVISIBLE, '');
}

/** Whether the text holds any invisible character. */
export function hasInvisible(text: string): boolean {
  return stripInvisible(text) !== text;
}
