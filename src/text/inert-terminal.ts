// Text made inert for a terminal. A control character acts on the terminal instead of showing: ESC, CSI and
// OSC sequences move the cursor, erase what was printed (a line erase hides the real command from whoever
// reads the run), set the window title or write the clipboard; BEL, backspace and a carriage return act too.
// Each is shown as its escape (`\x1b`), so what was sent stays readable and nothing acts.

/** C0 controls but tab and line feed, DEL and the C1 range (a terminal may read U+009B as CSI). */
// eslint-disable-next-line no-control-regex -- the control characters are what this matches
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

/** `text` with every control character but tab and line feed shown as `\xNN`; a CRLF line end is a line end. */
export function inertTerminal(text: string): string {
  return text
    .replace(/\r\n/g, '\n')
    .replace(CONTROL, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
}
