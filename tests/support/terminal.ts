// What a test looks for in text printed for a terminal: any control character the program did not put there.

/** The styles src/terminal/screen.ts paints (bold, dim, cyan and their ends): the only sequences it sends. */
// eslint-disable-next-line no-control-regex -- ESC starts each
const OWN_STYLES = /\u001b\[(?:1|2|22|36|39)m/g;
// eslint-disable-next-line no-control-regex -- the control characters are what this finds
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

/** The control characters of `text` besides tab, line feed and the program's own styles, as `\xNN` names. */
export function foreignControls(text: string): string[] {
  return [...text.replace(OWN_STYLES, '').matchAll(CONTROL)].map(
    ([c]) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`,
  );
}
