// Text the model influenced, made unable to act as a workflow command when the runner reads the log.
//
// The runner (actions/runner, ActionCommand) reads every line its step writes, a line ending at `\n`, `\r\n`
// or a lone `\r`, and takes it as a command in two forms: `::name …::data` once leading whitespace is
// trimmed, and the older `##[name …]data` anywhere in the line; names match in any case. Its comparisons are
// culture-sensitive, so characters that collation ignores (format and control characters, combining marks)
// may sit between the marks and still match: they are treated as absent here. Every such marker is broken
// with a space (`: :`, `## [`), which no reading of the line joins again; everything else is kept as written.

/** What collation may skip: format (zero-width, bidi, soft hyphen), control and combining characters. */
const IGNORABLE = String.raw`[\p{Cf}\p{Cc}\p{Mn}\p{Me}]`;
/** `::` as the first non-blank of a line (the new form). */
const LEADING_COLONS = new RegExp(String.raw`^((?:\s|${IGNORABLE})*):${IGNORABLE}*:`, 'u');
/** `##[` anywhere (the old form). */
const OLD_PREFIX = new RegExp(String.raw`#${IGNORABLE}*#${IGNORABLE}*\[`, 'gu');
/** What ends a line for the runner; kept as it was. */
const LINE_END = /(\r\n|\r|\n)/;

/** `text` with every line that could be read as a workflow command broken; line ends kept. */
export function inertCommands(text: string): string {
  return text
    .split(LINE_END)
    .map((part, index) => (index % 2 === 1 ? part : inertLine(part)))
    .join('');
}

function inertLine(line: string): string {
  return line.replace(OLD_PREFIX, '## [').replace(LEADING_COLONS, '$1: :');
}
