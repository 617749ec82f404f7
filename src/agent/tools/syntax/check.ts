// After an edit: does the file still parse? JSON, YAML, TOML and JavaScript are parsed here with well-kept
// parsers; Python and TypeScript by their own tools, run in the sandbox like any command the model runs. Only
// an error the edit brought in is reported (the text before it parsed, or the file is new), as information:
// the edit stays made. A check that cannot run (no python3, no typescript installed) says nothing.
import path from 'node:path';
import { runCommand } from '../../../sandbox/commands/run-command.js';
import type { ParserName } from './parsers.js';
import type { ToolContext } from '../types.js';

export interface SyntaxProblem {
  /** The language the file was read as: "JSON", "YAML". */
  language: string;
  line: number;
  column?: number;
  message: string;
}

/** What a checker finds: a problem, `undefined` for a clean parse, `null` when it could not check. */
type Finding = SyntaxProblem | undefined | null;

interface Checker {
  language: string;
  /** In process, from the text, by one of parsers.ts's parsers (loaded on first use). */
  parser?: ParserName;
  /** The longest text parsed in process: the parse holds the event loop, so a larger file is not checked. */
  maxChars?: number;
  /** In the sandbox, from the file on disk (its path relative to the workspace). */
  command?: (relativePath: string) => string;
}

/** Python's own compiler, without writing a .pyc into the working tree. */
const PYTHON_CHECK = [
  'import json, sys',
  'try:',
  "    compile(open(sys.argv[1], 'rb').read(), sys.argv[1], 'exec', dont_inherit=True)",
  "    print('syntax-check {}')",
  'except SyntaxError as e:',
  "    print('syntax-check ' + json.dumps({'line': e.lineno or 1, 'column': e.offset, 'message': e.msg}))",
].join('\n');

/** The project's own TypeScript, if it is installed: syntax only (transpileModule), no type check. */
const TYPESCRIPT_CHECK = [
  "const { createRequire } = require('node:module');",
  'let ts;',
  "try { ts = createRequire(process.cwd() + '/')('typescript'); } catch { process.exit(0); }",
  'const file = process.argv[1];',
  "const out = ts.transpileModule(require('node:fs').readFileSync(file, 'utf8'), { fileName: file, reportDiagnostics: true });",
  'const d = (out.diagnostics || []).find((x) => x.file && x.start !== undefined);',
  'const at = d && d.file.getLineAndCharacterOfPosition(d.start);',
  "const found = d ? { line: at.line + 1, column: at.character + 1, message: ts.flattenDiagnosticMessageText(d.messageText, ' ') } : {};",
  "console.log('syntax-check ' + JSON.stringify(found));",
].join('\n');

const quote = (text: string): string => `'${text.replaceAll("'", `'\\''`)}'`;

/**
 * Ours, from the parsers' speed: JSON, TOML and JavaScript parse at several MB a second, so 1 MB costs tens of
 * milliseconds; yaml at under 2 MB a second, and ten times slower on deep nesting, so it gets 128 KB.
 */
const MAX_PARSE_CHARS = 1024 * 1024;
const MAX_YAML_CHARS = 128 * 1024;

const CHECKERS: Record<string, Checker> = {
  '.json': { language: 'JSON', parser: 'json', maxChars: MAX_PARSE_CHARS },
  '.jsonc': { language: 'JSON', parser: 'json', maxChars: MAX_PARSE_CHARS },
  '.yml': { language: 'YAML', parser: 'yaml', maxChars: MAX_YAML_CHARS },
  '.yaml': { language: 'YAML', parser: 'yaml', maxChars: MAX_YAML_CHARS },
  '.toml': { language: 'TOML', parser: 'toml', maxChars: MAX_PARSE_CHARS },
  '.js': { language: 'JavaScript', parser: 'javascript', maxChars: MAX_PARSE_CHARS },
  '.mjs': { language: 'JavaScript', parser: 'javascript', maxChars: MAX_PARSE_CHARS },
  '.cjs': { language: 'JavaScript', parser: 'javascript', maxChars: MAX_PARSE_CHARS },
  '.py': { language: 'Python', command: (file) => `python3 -c ${quote(PYTHON_CHECK)} ${quote(file)}` },
  '.ts': { language: 'TypeScript', command: (file) => `node -e ${quote(TYPESCRIPT_CHECK)} ${quote(file)}` },
  '.mts': { language: 'TypeScript', command: (file) => `node -e ${quote(TYPESCRIPT_CHECK)} ${quote(file)}` },
  '.cts': { language: 'TypeScript', command: (file) => `node -e ${quote(TYPESCRIPT_CHECK)} ${quote(file)}` },
};

/** A sandboxed check's own line: `syntax-check {}` for a clean parse, or the problem's place and words. */
const ANSWER = /^syntax-check (\{.*\})$/m;
const CHECK_SECONDS = 20;

async function runChecker(
  checker: Checker,
  text: string,
  file: string,
  shownPath: string,
  context: ToolContext,
): Promise<Finding> {
  if (checker.parser) {
    if (text.length > (checker.maxChars ?? 0)) return null;
    // The parsers are loaded the first time a file of their kind is written: a run that edits none never loads them.
    const { findProblem } = await import('./parsers.js');
    let found;
    try {
      found = findProblem(checker.parser, text, shownPath);
    } catch {
      return null; // a parser that gave up (nesting deeper than its stack) could not check
    }
    return found && { language: checker.language, ...found };
  }
  const result = await runCommand(checker.command!(path.relative(context.workspace, file)), {
    cwd: context.workspace,
    env: context.env,
    timeoutMs: CHECK_SECONDS * 1000,
    limit: 4_000,
    ...(context.signal ? { signal: context.signal } : {}),
    ...(context.sandbox ? { sandbox: context.sandbox } : {}),
  });
  const answer = ANSWER.exec(result.output)?.[1];
  if (result.exitCode !== 0 || !answer) return null;
  const found = JSON.parse(answer) as { line?: number; column?: number | null; message?: string };
  if (typeof found.line !== 'number') return undefined;
  return {
    language: checker.language,
    line: found.line,
    ...(typeof found.column === 'number' ? { column: found.column } : {}),
    message: String(found.message ?? 'syntax error'),
  };
}

/**
 * Writes the file (`write`) and tells whether that broke its syntax: a sentence when the new text has an
 * error that the old one (`before`; undefined for a new file) did not, else undefined. Files of a kind not
 * checked here are just written.
 */
export async function writeAndCheck(
  write: () => Promise<void>,
  target: { file: string; shownPath: string; before: string | undefined; after: string },
  context: ToolContext,
): Promise<string | undefined> {
  const checker = CHECKERS[path.extname(target.file).toLowerCase()];
  const check = (text: string) => runChecker(checker!, text, target.file, target.shownPath, context);
  const cleanBefore =
    checker !== undefined && (target.before === undefined || (await check(target.before)) === undefined);
  await write();
  if (!cleanBefore) return undefined;
  const problem = await check(target.after);
  if (!problem) return undefined;
  const where = `line ${problem.line}${problem.column === undefined ? '' : `, column ${problem.column}`}`;
  const verb = target.before === undefined ? 'does not parse' : 'no longer parses';
  const message = problem.message.replace(/\.+$/, '');
  return `${target.shownPath} ${verb} as ${problem.language}: ${where}: ${message}. The file is written as asked; fix it with another edit if that was not the intent.`;
}
