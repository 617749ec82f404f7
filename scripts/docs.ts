// `npm run docs`: writes the parts of docs/ that are taken from the code, so that they cannot drift from it:
// the tables of inputs and outputs in docs/configuration.md, from action.yml. tests/docs.test.ts fails when
// the committed page differs from what this writes.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { format, resolveConfig } from 'prettier';
import { parse } from 'yaml';

const ROOT = join(import.meta.dirname, '..');
export const CONFIGURATION_PAGE = join(ROOT, 'docs/configuration.md');

interface ActionMetadata {
  inputs: Record<string, { description: string; default?: string }>;
  outputs: Record<string, { description: string }>;
}

/** Where a page says more than action.yml's one description can: a link after it. */
const MORE: Record<string, string> = {
  model: '[Models and cost](models-and-cost.md#amazon-bedrock-or-google-vertex-ai)',
  label: '[More ways to start](usage.md#more-ways-to-start)',
  assignee: '[More ways to start](usage.md#more-ways-to-start)',
  max_context_tokens: '[Long runs](models-and-cost.md#models-thinking-and-long-runs)',
  max_cost_usd: '[What a run costs](models-and-cost.md#what-a-run-costs-and-the-caps)',
  verify_command: '[The verification gate](how-it-works.md#the-verification-gate)',
  sandbox: '[The sandbox](security.md#the-sandbox)',
  tool_network: '[The network gate](network.md)',
  allowed_hosts: '[Adding hosts](network.md#adding-hosts)',
  github_token: '[Permissions](setup.md#permissions-and-why-each-is-needed)',
  transcript: '[The run record](how-it-works.md#the-run-record)',
};

/** A description as one table cell: one line, no cell break, the page link after it. */
function cell(name: string, description: string): string {
  const text = description.trim().replace(/\s+/g, ' ').replace(/\|/g, '\\|');
  return MORE[name] ? `${text} See ${MORE[name]}.` : text;
}

function inputsTable(action: ActionMetadata): string {
  const rows = Object.entries(action.inputs).map(([name, input]) => {
    const fallback = input.default ? `\`${input.default}\`` : 'empty';
    return `| \`${name}\` | ${fallback} | ${cell(name, input.description)} |`;
  });
  return ['| Input | Default | Meaning |', '| --- | --- | --- |', ...rows].join('\n');
}

function outputsTable(action: ActionMetadata): string {
  const rows = Object.entries(action.outputs).map(
    ([name, output]) => `| \`${name}\` | ${cell(name, output.description)} |`,
  );
  return ['| Output | Meaning |', '| --- | --- |', ...rows].join('\n');
}

/** The markers around a generated part; what lies between them is replaced, the rest of the page kept. */
const marker = (part: string) => ({
  start: `<!-- ${part}: written by \`npm run docs\` from action.yml; edit action.yml, not this table -->`,
  end: `<!-- end of ${part} -->`,
});

function replacePart(page: string, part: string, content: string): string {
  const { start, end } = marker(part);
  const from = page.indexOf(start);
  const to = page.indexOf(end);
  if (from === -1 || to < from) throw new Error(`docs/configuration.md has no ${part} markers`);
  return `${page.slice(0, from + start.length)}\n\n${content}\n\n${page.slice(to)}`;
}

/** docs/configuration.md as `npm run docs` writes it, from the page as it is and action.yml. */
export async function configurationPage(page: string, actionYml: string): Promise<string> {
  const action = parse(actionYml) as ActionMetadata;
  let written = replacePart(page, 'inputs', inputsTable(action));
  written = replacePart(written, 'outputs', outputsTable(action));
  const options = (await resolveConfig(CONFIGURATION_PAGE)) ?? {};
  return await format(written, { ...options, filepath: CONFIGURATION_PAGE });
}

async function main(): Promise<void> {
  const page = await readFile(CONFIGURATION_PAGE, 'utf8');
  const written = await configurationPage(page, await readFile(join(ROOT, 'action.yml'), 'utf8'));
  if (written === page) {
    process.stdout.write('docs/configuration.md is up to date.\n');
    return;
  }
  await writeFile(CONFIGURATION_PAGE, written);
  process.stdout.write(
    'docs/configuration.md: the inputs and outputs tables were written from action.yml.\n',
  );
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main();
