// The one way text reaches a terminal: the CLI's output and errors, `todo-agent show`, the job log's panel
// and tool lines. Whatever a line holds (a command, a path, a todo item, a verify log the model made) is made
// inert here (src/text/inert-terminal.ts), so no escape sequence the model wrote acts on the terminal. The
// only sequences that reach it are the styles painted here, added after the text was made inert.
import { inertTerminal } from '../text/inert-terminal.js';

const CSI = '\u001b[';
const STYLES = {
  bold: [`${CSI}1m`, `${CSI}22m`],
  dim: [`${CSI}2m`, `${CSI}22m`],
  cyan: [`${CSI}36m`, `${CSI}39m`],
} as const;
export type Style = keyof typeof STYLES;

/** Text to show in the program's own styles. */
export interface Painted {
  text: string;
  styles: readonly Style[];
}
/** A piece of what is printed: plain text, or painted text. */
export type Span = string | Painted;

export const paint = (text: string, ...styles: Style[]): Painted => ({ text, styles });

export interface Screen {
  /** Prints the spans as they are, with no line break added. */
  print(...spans: Span[]): void;
}

/**
 * A screen that hands each print to `write` as terminal text: every span made inert, painted ones styled
 * when `color` (a terminal that wants colour; the job log and a pipe get none).
 */
export function screen(write: (text: string) => void, color: boolean): Screen {
  const render = (span: Span): string => {
    if (typeof span === 'string') return inertTerminal(span);
    const text = inertTerminal(span.text);
    if (!color) return text;
    return span.styles.reduceRight((inner, style) => `${STYLES[style][0]}${inner}${STYLES[style][1]}`, text);
  };
  return { print: (...spans) => write(spans.map(render).join('')) };
}

/**
 * Whether to colour output on `stream`: FORCE_COLOR wins when set ('0' or 'false' turn colour off),
 * then a non-empty NO_COLOR turns it off, else colour goes to terminals only (not TERM=dumb).
 */
export function shouldColor(
  stream: Pick<NodeJS.WriteStream, 'isTTY'>,
  env: NodeJS.ProcessEnv = process.env,
): boolean {
  const force = env.FORCE_COLOR;
  if (force !== undefined) return force !== '0' && force.toLowerCase() !== 'false';
  if (env.NO_COLOR) return false;
  return stream.isTTY === true && env.TERM !== 'dumb';
}
