// The parsers that check a written file in process: JSON (jsonc-parser, VS Code's, which gives every error's
// offset where JSON.parse often gives none), YAML (yaml), TOML (smol-toml) and JavaScript (acorn). Loaded by
// check.ts on first use.
import { parse as parseJsonc, printParseErrorCode, type ParseError } from 'jsonc-parser';
import { isScalar, parseAllDocuments, visit, type Document } from 'yaml';
import { parse as parseToml, TomlError } from 'smol-toml';
import { parse as parseJs } from 'acorn';

export type ParserName = 'json' | 'yaml' | 'toml' | 'javascript';

/** Where a text stops parsing, and why. */
export interface Problem {
  line: number;
  column?: number;
  message: string;
}

/** The first syntax error in `text`, read as `parser`'s language; undefined when it parses. */
export function findProblem(parser: ParserName, text: string, shownPath: string): Problem | undefined {
  switch (parser) {
    case 'json':
      return checkJson(text, shownPath);
    case 'yaml':
      return checkYaml(text);
    case 'toml':
      return checkToml(text);
    case 'javascript':
      return checkJavaScript(text);
  }
}

const firstLine = (text: string): string => text.split('\n', 1)[0]!.trim();

/** Files that are JSON with comments by convention: comments and trailing commas are allowed there. */
const JSONC =
  /(^|\/)(\.vscode\/[^/]+|(ts|js)config(\.[^/]*)?\.json|\.devcontainer(\/[^/]+)?\.json|devcontainer\.json)$|\.jsonc$/;

function lineColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset);
  return { line: before.split('\n').length, column: offset - before.lastIndexOf('\n') };
}

/** "PropertyNameExpected" as words: "property name expected". */
const words = (code: string): string => code.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase();

function checkJson(text: string, shownPath: string): Problem | undefined {
  const lenient = JSONC.test(shownPath);
  const errors: ParseError[] = [];
  parseJsonc(text, errors, {
    disallowComments: !lenient,
    allowTrailingComma: lenient,
    allowEmptyContent: false,
  });
  const first = errors[0];
  if (!first) return undefined;
  return { ...lineColumn(text, first.offset), message: words(printParseErrorCode(first.error)) };
}

function checkYaml(text: string): Problem | undefined {
  // yaml checks each key of a map against every other (a map of 40,000 keys took 40 s): keys are checked
  // here instead, in one pass.
  for (const document of parseAllDocuments(text, { prettyErrors: false, uniqueKeys: false })) {
    const error = document.errors[0];
    // yaml reports its own stack running out as an error of the text: it is only a check that could not run.
    if (error && /call stack/i.test(error.message)) throw new RangeError(error.message);
    if (error) {
      const at = error.linePos?.[0];
      const place = at ? { line: at.line, column: at.col } : lineColumn(text, error.pos[0]);
      return { ...place, message: firstLine(error.message).replace(/ at line \d+, column \d+:?$/, '') };
    }
    const duplicate = duplicateKey(document);
    if (duplicate !== undefined)
      return { ...lineColumn(text, duplicate), message: 'Map keys must be unique' };
  }
  return undefined;
}

/** Where a map's key repeats an earlier key of the same map, as yaml's own check finds one (equal scalars). */
function duplicateKey(document: Document.Parsed): number | undefined {
  let found: number | undefined;
  visit(document, {
    Map(_, map) {
      const seen = new Set<unknown>();
      for (const { key } of map.items) {
        // yaml compares with ===, so no NaN equals another.
        if (!isScalar(key) || Number.isNaN(key.value)) continue;
        if (seen.has(key.value)) {
          found = key.range?.[0] ?? 0;
          return visit.BREAK;
        }
        seen.add(key.value);
      }
      return undefined;
    },
  });
  return found;
}

function checkToml(text: string): Problem | undefined {
  try {
    parseToml(text);
    return undefined;
  } catch (error) {
    if (!(error instanceof TomlError)) throw error;
    return {
      line: error.line,
      column: error.column,
      message: firstLine(error.message).replace(/^Invalid TOML document: /, ''),
    };
  }
}

/** As an ES module, else as a script (CommonJS): only text that is neither is an error. */
function checkJavaScript(text: string): Problem | undefined {
  let problem: Problem | undefined;
  for (const sourceType of ['module', 'script'] as const) {
    try {
      parseJs(text, {
        ecmaVersion: 'latest',
        sourceType,
        allowHashBang: true,
        allowReturnOutsideFunction: sourceType === 'script',
      });
      return undefined;
    } catch (error) {
      const loc = (error as { loc?: { line: number; column: number } }).loc;
      if (!(error instanceof SyntaxError) || !loc) throw error;
      problem ??= {
        line: loc.line,
        column: loc.column + 1,
        message: error.message.replace(/ \(\d+:\d+\)$/, ''),
      };
    }
  }
  return problem;
}
