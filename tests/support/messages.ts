// The messages the action and the CLI can show a person (a reply, a checklist's reason, a log warning, a failed
// step, a CLI error), found in src/ by where they are written rather than listed by hand, so that a new
// message at any of these places fails the docs test until docs/troubleshooting.md has an entry for it.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';

export interface Message {
  /** Relative to src/, with forward slashes. */
  file: string;
  line: number;
  /** The message with each part that changes from run to run written as `…`. */
  text: string;
}

/** Calls whose argument (the last one) is a message a person reads. */
const SAYING = new Set([
  'answer', // a reply on the thread (src/github/answer.ts)
  'reply', // the same, under another name
  'respond', // `/agent cancel`'s reply
  'log.warning', // a warning in the job log
  'setFailed', // the step's failure
  'notice', // a model notice, a warning in the log or on the CLI's stderr
  'warn', // a warning from the GitHub client or the sandbox
  'stderr.print', // the CLI's errors and warnings (src/cli/output.ts, its only way to stderr)
  'rule', // a setting's rule: its last argument says what is wrong with a value
]);

/** Errors whose message ends a run or a CLI command. Tool errors are the model's to read, not a person's. */
const ERRORS = new Set(['Error', 'SettingsError', 'SandboxError', 'NoIsolationError', 'UsageError']);

/** Object fields that carry the sentence a run ends with, a decline, a delivery note or a settings problem. */
const FIELDS = new Set(['reason', 'decline', 'note', 'message']);

/** Functions whose returned text is a message (a problem with the task or the provider, a notice). */
const RETURNING =
  /^(taskProblem|providerProblem|credentialProblems|waitingText|waysOut|#adjust|stopReasonEnding)$/;

/** Where text is the model's to read (tool results) or a program's, not a person's. */
const NOT_FOR_PEOPLE = /^(agent\/tools\/|agent\/todos\.ts|agent\/workspace\.ts|github\/reading\/)/;

/**
 * Text at those places that no person reads: internal checks no input can reach (they would point at a bug,
 * and the docs cannot help), and the github tool's refusal, which is the model's to read.
 */
const NOT_SHOWN = [
  /^not an object id: /,
  /^git cat-file --batch: no blob /,
  /^the github tool only reads; /,
  /^the network gate needs a sandbox opened with network: gated$/,
];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? sourceFiles(join(dir, entry.name))
      : entry.name.endsWith('.ts')
        ? [join(dir, entry.name)]
        : [],
  );
}

const GAP = '…';
const MAX_FORMS = 8;

/** What `node` can be as text: every form, with what changes written as `…` (capped, merged gaps). */
function forms(node: ts.Node, file: ts.SourceFile, depth = 0): string[] {
  const join2 = (a: string[], b: string[]) =>
    a.flatMap((x) => b.map((y) => `${x}${y}`.replace(/…+/g, GAP))).slice(0, MAX_FORMS);
  if (depth > 4) return [GAP];
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return [node.text];
  if (ts.isParenthesizedExpression(node) || ts.isAsExpression(node))
    return forms(node.expression, file, depth);
  if (ts.isTemplateExpression(node)) {
    let out = [node.head.text];
    for (const span of node.templateSpans) {
      out = join2(join2(out, forms(span.expression, file, depth + 1)), [span.literal.text]);
    }
    return out;
  }
  if (ts.isBinaryExpression(node) && node.operatorToken.kind === ts.SyntaxKind.PlusToken) {
    return join2(forms(node.left, file, depth + 1), forms(node.right, file, depth + 1));
  }
  if (ts.isConditionalExpression(node)) {
    return [...forms(node.whenTrue, file, depth + 1), ...forms(node.whenFalse, file, depth + 1)].slice(
      0,
      MAX_FORMS,
    );
  }
  if (ts.isArrowFunction(node) && !ts.isBlock(node.body)) return forms(node.body, file, depth + 1);
  if (ts.isArrayLiteralExpression(node)) {
    return node.elements.flatMap((element) => forms(element, file, depth + 1)).slice(0, MAX_FORMS);
  }
  if (ts.isIdentifier(node)) {
    const value = constant(node.text, file);
    return value ? forms(value, file, depth + 1) : [GAP];
  }
  return [GAP];
}

/** The initializer of a top-level `const name = …` in the same file. */
function constant(name: string, file: ts.SourceFile): ts.Expression | undefined {
  for (const statement of file.statements) {
    if (!ts.isVariableStatement(statement)) continue;
    for (const declaration of statement.declarationList.declarations) {
      if (ts.isIdentifier(declaration.name) && declaration.name.text === name) return declaration.initializer;
    }
  }
  return undefined;
}

const functionName = (node: ts.Node): string | undefined => {
  for (let at: ts.Node | undefined = node; at; at = at.parent) {
    if ((ts.isFunctionDeclaration(at) || ts.isMethodDeclaration(at)) && at.name) return at.name.getText();
  }
  return undefined;
};

/** The expressions that hold a message in one source file. */
function sites(file: ts.SourceFile): ts.Node[] {
  const found: ts.Node[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node)) {
      const callee = node.expression.getText(file);
      const last = node.arguments.at(-1);
      if (last && SAYING.has(callee)) found.push(last);
      // zod's `.refine(check, 'message')` and `.regex(pattern, 'message')` in the settings.
      if (
        ts.isPropertyAccessExpression(node.expression) &&
        /^(refine|regex)$/.test(node.expression.name.text)
      ) {
        const message = node.arguments[1];
        if (message) found.push(message);
      }
    }
    if (ts.isNewExpression(node) && ts.isIdentifier(node.expression) && ERRORS.has(node.expression.text)) {
      const first = node.arguments?.[0];
      if (first) found.push(first);
    }
    if (ts.isPropertyAssignment(node) && FIELDS.has(node.name.getText(file))) found.push(node.initializer);
    // `const message = …`: a message made once and used twice.
    if (ts.isVariableDeclaration(node) && node.name.getText(file) === 'message' && node.initializer) {
      found.push(node.initializer);
    }
    if (ts.isReturnStatement(node) && node.expression && RETURNING.test(functionName(node) ?? '')) {
      found.push(node.expression);
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

/** Enough fixed words to recognise the message by (a bare `${x}: ${y}` says nothing of its own). */
const saysSomething = (text: string) => text.replace(/…/g, '').replace(/[^\p{L}]/gu, '').length >= 10;

export function userMessages(srcDir: string): Message[] {
  const messages: Message[] = [];
  for (const path of sourceFiles(srcDir)) {
    const name = relative(srcDir, path).split('\\').join('/');
    if (NOT_FOR_PEOPLE.test(name)) continue;
    const file = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest, true);
    for (const node of sites(file)) {
      const line = file.getLineAndCharacterOfPosition(node.getStart(file)).line + 1;
      for (const text of forms(node, file)) {
        if (saysSomething(text) && !NOT_SHOWN.some((pattern) => pattern.test(text))) {
          messages.push({ file: name, line, text });
        }
      }
    }
  }
  return messages;
}

/**
 * Whether a quote from the docs (`…` where the message changes) fits a message: its fixed parts appear in the
 * message in order, none of them across a part that changes.
 */
export function quoteFits(quote: string, message: string): boolean {
  const parts = quote
    .split(GAP)
    .map((part) => part.trim())
    .filter((part) => part !== '');
  if (parts.length === 0) return false;
  let from = 0;
  for (const part of parts) {
    const at = message.indexOf(part, from);
    if (at === -1) return false;
    from = at + part.length;
  }
  return true;
}
