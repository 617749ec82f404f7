// The layout's rules, checked on the sources: each outside system sits behind one folder, the agent core knows
// nothing of GitHub, git or the runner, nothing reaches into the wiring, no module imports itself through others,
// and every unit test sits at the path of the module it tests. docs/architecture.md draws the same map.
import { readdir, readFile } from 'node:fs/promises';
import { dirname, join, normalize, relative } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';

const SRC = join(import.meta.dirname, '../src');
const TESTS = import.meta.dirname;

interface Source {
  /** Relative to src/, with forward slashes: `agent/loop.ts`. */
  file: string;
  /** The folder under src/ that owns it (`agent`, `github`; `.` for the entries at the top). */
  folder: string;
  /** Every module it imports, static or dynamic: package names as written, our own files resolved. */
  imports: string[];
  text: string;
}

async function files(dir = SRC): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const nested = await Promise.all(
    entries.map((entry) =>
      entry.isDirectory()
        ? files(join(dir, entry.name))
        : Promise.resolve(entry.name.endsWith('.ts') ? [join(dir, entry.name)] : []),
    ),
  );
  return nested.flat();
}

const folderOf = (file: string): string => (file.includes('/') ? file.split('/')[0]! : '.');

async function readSources(): Promise<Source[]> {
  const found: Source[] = [];
  for (const path of await files()) {
    const file = relative(SRC, path).split('\\').join('/');
    const text = await readFile(path, 'utf8');
    const imports = [...text.matchAll(/\bfrom\s+'([^']+)'|\bimport\(\s*'([^']+)'\s*\)/g)].map((m) => {
      const name = (m[1] ?? m[2])!;
      if (!name.startsWith('.')) return name;
      return normalize(join(dirname(file), name))
        .split('\\')
        .join('/')
        .replace(/\.js$/, '.ts');
    });
    found.push({ file, folder: folderOf(file), imports, text });
  }
  return found;
}

/**
 * The source files that need no test of their own, and why: entry points that tests run whole, files of types
 * only, and constants. Everything else in src/ has a test at its mirrored path (tests/x/y.test.ts for src/x/y.ts),
 * and a new file joins this list only with a reason a reviewer accepts.
 */
const NEEDS_NO_TEST = new Map([
  ['index.ts', "the action's entry: its three lines are dist/index.js, which every test in tests/e2e/ runs"],
  ['cli.ts', "the CLI's entry: dist/cli.js, which tests/cli/main.test.ts and tests/demo-cli.test.ts run"],
  ['post.ts', "the post step's entry: dist/post.js, which tests/e2e/git-dir*.test.ts run after a main step"],
  [
    'images/decoding/decoder-main.ts',
    "the decoder process's entry: tests/images/decoder.test.ts starts it for every picture",
  ],
  ['agent/helpers/role.ts', 'types only: nothing in it runs'],
  ['agent/options.ts', 'types only: what a run of the loop is given; nothing in it runs'],
  [
    'agent/tools/types.ts',
    "types only, and ToolError, an Error with its own name and no logic (the tools' tests see it refuse)",
  ],
  [
    'agent/defaults.ts',
    'four numbers, no logic: tests/settings/ check the defaults the settings read from them',
  ],
]);

let sources: Source[] = [];
beforeAll(async () => {
  sources = await readSources();
});

const ours = (name: string): boolean => name.endsWith('.ts');

/** The folders (or top-level files) of src/ whose modules import a package matching `pattern`. */
function foldersImporting(pattern: RegExp): string[] {
  const folders = sources.filter((s) => s.imports.some((name) => !ours(name) && pattern.test(name)));
  return [...new Set(folders.map((s) => s.folder))].sort();
}

describe('the layout', () => {
  it('reads the sources it checks (a rule over no files proves nothing)', () => {
    expect(sources.length).toBeGreaterThan(50);
    expect(sources.map((s) => s.file)).toContain('agent/loop.ts');
    expect(sources.find((s) => s.file === 'agent/loop.ts')!.imports).toContain('agent/todo/todos.ts');
  });

  it('the agent core imports only the model, the sandbox and pure text and image helpers (never GitHub, git or the runner)', () => {
    const allowed = /^(agent|model|sandbox|text|images)\//;
    const breaches = sources
      .filter((s) => s.folder === 'agent')
      .flatMap((s) =>
        s.imports.filter((name) => ours(name) && !allowed.test(name)).map((name) => `${s.file} → ${name}`),
      );
    expect(breaches).toEqual([]);
  });

  it('each outside system is reached from one folder only', () => {
    expect(foldersImporting(/^@anthropic-ai\//)).toEqual(['model']);
    expect(foldersImporting(/^@actions\/github$|^@octokit\//)).toEqual(['github']);
    expect(foldersImporting(/^@actions\/core$/)).toEqual(['runner']);
    // JSON Schema validation (the final answer of output_schema), by the model's schema module.
    expect(foldersImporting(/^ajv(-formats)?$/)).toEqual(['model']);
    // The MCP SDK (the client side, and its stdio framing), reached only by the MCP servers' module.
    expect(foldersImporting(/^@modelcontextprotocol\//)).toEqual(['mcp']);
    // The image codecs (pure JavaScript, and libwebp in WebAssembly), reached only by the module that decodes
    // and scales pictures; the WebAssembly one by one file, which loads it on first use.
    expect(foldersImporting(/^(pngjs|jpeg-js|omggif|@jsquash\/webp\/.*)$/)).toEqual(['images']);
    const wasm = sources.filter((s) => s.imports.some((name) => name.startsWith('@jsquash/')));
    expect(wasm.map((s) => s.file)).toEqual(['images/decoding/webp.ts']);
    // Processes start in three places: the sandbox (everything the model runs), our own git, and the
    // pictures' decoder (a process of its own, limited, so that no picture can exhaust the action).
    expect(foldersImporting(/^node:child_process$/)).toEqual(['git', 'images', 'sandbox']);
    const starters = sources.filter((s) => s.folder === 'images' && s.imports.includes('node:child_process'));
    expect(starters.map((s) => s.file)).toEqual(['images/decoder.ts']);
  });

  it('the network gate is one folder: network/ imports only the sandbox of ours, and the rest reach it through gate.ts and hosts.ts', () => {
    const gate = sources.filter((s) => s.folder === 'network');
    expect(gate.map((s) => s.file)).toContain('network/gate.ts');
    const breaches = gate.flatMap((s) =>
      s.imports
        .filter((name) => ours(name) && !/^(network|sandbox|text)\//.test(name))
        .map((name) => `${s.file} → ${name}`),
    );
    expect(breaches).toEqual([]);
    const users = sources.filter(
      (s) => s.folder !== 'network' && s.imports.some((name) => name.startsWith('network/')),
    );
    const entries = new Set(users.flatMap((s) => s.imports.filter((name) => name.startsWith('network/'))));
    expect([...entries].sort()).toEqual(['network/gate.ts', 'network/hosts.ts']);
    // The tools' runtime opens it, the wiring and the settings read allowed_hosts, and the MCP servers' remote
    // requests go through its fetch (their hosts joining its list); the agent core learns of refusals from the
    // sandbox it is given, never from the gate itself.
    expect([...new Set(users.map((s) => s.folder))].sort()).toEqual([
      'action',
      'cli',
      'mcp',
      'runtime',
      'settings',
    ]);
  });

  it('only src/github/api/octokit.ts holds an Octokit, and only src/runner/output.ts the runner (both redact what they send)', () => {
    const importers = (pattern: RegExp) =>
      sources.filter((s) => s.imports.some((name) => !ours(name) && pattern.test(name))).map((s) => s.file);
    expect(importers(/^@actions\/github$|^@octokit\//)).toEqual(['github/api/octokit.ts']);
    expect(importers(/^@actions\/core$/)).toEqual(['runner/output.ts']);
  });

  it('prints to a terminal through a screen only: src/cli/output.ts alone writes to stdout and stderr', () => {
    // The action's log goes through @actions/core in src/runner/output.ts; the CLI's output through the
    // screens of src/cli/output.ts, which make every line inert (src/terminal/screen.ts). The pictures'
    // decoder answers the process that started it on its stdout, a pipe, never a terminal.
    const writers = sources.filter((s) =>
      /\bprocess\.(?:stdout|stderr)\.write\b|\bconsole\.(?:log|info|warn|error|debug)\(/.test(
        // A script handed to another process (a string) is not this process printing.
        s.text.replace(/'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*"/g, "''"),
      ),
    );
    expect(writers.map((s) => s.file)).toEqual(['cli/output.ts', 'images/decoding/decoder-main.ts']);
  });

  it('uses no outside package but the ones named here', () => {
    // zod is the one library of the language itself: every boundary that takes data validates it with it
    // (its tree-shakable zod/mini where a small bundle counts: the post step's). package.json: the package's
    // own name and version (the MCP client's clientInfo; the bundle keeps those two fields alone).
    const known =
      /^(\.\.\/package\.json$|node:|zod(\/mini)?$|@anthropic-ai\/|@modelcontextprotocol\/sdk\/(client|shared)\/[\w/.]+\.js$|@modelcontextprotocol\/sdk\/types\.js$|@actions\/(core|github)$|@octokit\/|jsonc-parser$|yaml$|smol-toml$|acorn$|ajv(-formats)?$|(pngjs|jpeg-js|omggif)$|@jsquash\/webp\/decode\.js$)/;
    const unknown = sources.flatMap((s) => s.imports.filter((name) => !ours(name) && !known.test(name)));
    expect(unknown).toEqual([]);
  });

  it('the parsers that check a written file sit behind one module, loaded on first use', () => {
    const parsers = /^(jsonc-parser|yaml|smol-toml|acorn)$/;
    const users = sources.filter((s) => s.imports.some((name) => !ours(name) && parsers.test(name)));
    expect(users.map((s) => s.file)).toEqual(['agent/tools/syntax/parsers.ts']);
    const loaders = sources.filter((s) => s.imports.includes('agent/tools/syntax/parsers.ts'));
    expect(loaders.map((s) => s.file)).toEqual(['agent/tools/syntax/check.ts']);
  });

  it('nothing imports the wiring: action/ only from src/index.ts, cli/ only from src/cli.ts', () => {
    const into = (folder: string) =>
      sources
        .filter((s) => s.folder !== folder && s.imports.some((name) => name.startsWith(`${folder}/`)))
        .map((s) => s.file);
    expect(into('action')).toEqual(['index.ts']);
    expect(into('cli')).toEqual(['cli.ts']);
  });

  it('has no import cycles between modules', () => {
    const graph = new Map(sources.map((s) => [s.file, s.imports.filter(ours)]));
    const cycles: string[] = [];
    const state = new Map<string, 'open' | 'done'>();
    const visit = (file: string, path: string[]): void => {
      if (state.get(file) === 'done') return;
      if (state.get(file) === 'open') {
        cycles.push([...path.slice(path.indexOf(file)), file].join(' → '));
        return;
      }
      state.set(file, 'open');
      for (const next of graph.get(file) ?? []) visit(next, [...path, file]);
      state.set(file, 'done');
    };
    for (const file of graph.keys()) visit(file, []);
    expect(cycles).toEqual([]);
  });

  it('has no cycles between folders either: the map in docs/architecture.md reads top to bottom', () => {
    const edges = new Map<string, Set<string>>();
    for (const s of sources)
      for (const name of s.imports.filter(ours)) {
        const [from, to] = [s.folder, folderOf(name)];
        if (from !== to) edges.set(from, (edges.get(from) ?? new Set()).add(to));
      }
    const reaches = (from: string, to: string, seen = new Set<string>()): boolean =>
      [...(edges.get(from) ?? [])].some(
        (next) => next === to || (!seen.has(next) && (seen.add(next), reaches(next, to, seen))),
      );
    const loops = [...edges].flatMap(([from, tos]) =>
      [...tos].filter((to) => reaches(to, from)).map((to) => `${from} ⇄ ${to}`),
    );
    expect(loops).toEqual([]);
  });

  it('tests mirror src/ path for path: tests/x/y.test.ts (or y.property.test.ts) tests src/x/y.ts', async () => {
    // Beside the unit tests: the end-to-end runs, the test servers, and the repo-level tests at the top.
    const unit = (await files(TESTS))
      .map((path) => relative(TESTS, path).split('\\').join('/'))
      .filter((file) => file.includes('/') && !/^(e2e|support)\//.test(file) && file.endsWith('.test.ts'));
    expect(unit.length).toBeGreaterThan(40);
    const sourceFiles = new Set(sources.map((s) => s.file));
    const orphans = unit.filter((file) => !sourceFiles.has(file.replace(/(\.property)?\.test\.ts$/, '.ts')));
    expect(orphans).toEqual([]);
  });

  it('and the other way: every source file has its test at the mirrored path, but for the few named here', async () => {
    const tests = new Set(
      (await files(TESTS))
        .map((path) => relative(TESTS, path).split('\\').join('/'))
        .filter((f) => f.endsWith('.test.ts')),
    );
    const tested = (file: string) =>
      ['.test.ts', '.property.test.ts'].some((end) => tests.has(file.replace(/\.ts$/, end)));
    const untested = sources.map((s) => s.file).filter((file) => !tested(file));
    expect(untested.filter((file) => !NEEDS_NO_TEST.has(file))).toEqual([]);
    // Each name on the list is a source file without its test: a list that outlives its files says nothing.
    expect([...NEEDS_NO_TEST.keys()].filter((file) => !untested.includes(file))).toEqual([]);
  });

  it('no folder of src/ holds more than 12 source files, and no source file is over 400 lines', () => {
    // A folder past a dozen files holds more than one idea, and a file past 400 lines more than one module's:
    // split by idea into a subfolder named for what it holds (agent/todo/) or a module of its own.
    const perFolder = new Map<string, number>();
    for (const s of sources) perFolder.set(dirname(s.file), (perFolder.get(dirname(s.file)) ?? 0) + 1);
    const crowded = [...perFolder]
      .filter(([, count]) => count > 12)
      .map(([folder, count]) => `${folder}: ${count}`);
    expect(crowded).toEqual([]);
    const long = sources
      .map((s) => ({ file: s.file, lines: s.text.split('\n').length - (s.text.endsWith('\n') ? 1 : 0) }))
      .filter(({ lines }) => lines > 400)
      .map(({ file, lines }) => `${file}: ${lines}`);
    expect(long).toEqual([]);
  });

  it('every folder of src/, subfolders too, is one named here and in docs/architecture.md', async () => {
    const known = [
      'action',
      'action/prepare',
      'agent',
      'agent/briefing',
      'agent/context',
      'agent/helpers',
      'agent/todo',
      'agent/tools',
      'agent/tools/syntax',
      'cli',
      'delivery',
      'delivery/fork',
      'delivery/messages',
      'git',
      'github',
      'github/api',
      'github/checklist',
      'github/reading',
      'github/request',
      'github/thread',
      'images',
      'images/decoding',
      'mcp',
      'model',
      'network',
      'network/proxy',
      'network/runner',
      'record',
      'runner',
      'runtime',
      'sandbox',
      'sandbox/commands',
      'settings',
      'terminal',
      'text',
    ];
    const folders = [...new Set(sources.map((s) => dirname(s.file)))]
      .filter((folder) => folder !== '.')
      .sort();
    expect(folders).toEqual(known);
    const map = await readFile(join(SRC, '../docs/architecture.md'), 'utf8');
    const unmapped = folders.filter((folder) => !map.includes(`\`${folder.split('/').at(-1)}/\``));
    expect(unmapped).toEqual([]);
  });

  it('docs/architecture.md\'s "may import" rows are true: each folder imports only what its row names, and each named arrow is real', async () => {
    const map = await readFile(join(SRC, '../docs/architecture.md'), 'utf8');
    // The rows of the folders' table, top to bottom: | `folder/` | holds | may import | outside code |.
    const rows = map
      .split('\n')
      .map((line) => /^\| `([\w-]+)\/`\s*\|[^|]*\|([^|]*)\|/.exec(line))
      .filter((m): m is RegExpExecArray => m !== null)
      .map((m) => ({ folder: m[1]!, may: m[2]!.trim() }));
    expect(rows.length).toBeGreaterThan(10);
    const order = rows.map((row) => row.folder);
    const imported = (folder: string) =>
      new Set(
        sources
          .filter((s) => s.folder === folder)
          .flatMap((s) => s.imports.filter(ours).map(folderOf))
          .filter((to) => to !== folder && to !== '.'),
      );
    const wrong: string[] = [];
    rows.forEach(({ folder, may }, at) => {
      const below = order.slice(at + 1);
      const named = [...may.matchAll(/`([\w-]+)\/`/g)].map((m) => m[1]!);
      const anythingBelow = /^anything below/.test(may);
      const allowed = anythingBelow ? below.filter((f) => !named.includes(f)) : named;
      // A row that lists its folders names only folders below it ("anything below but …" names exceptions).
      for (const to of anythingBelow ? [] : named.filter((f) => !below.includes(f)))
        wrong.push(`${folder}: names ${to}/, which is not below it`);
      for (const to of imported(folder))
        if (!allowed.includes(to)) wrong.push(`${folder} → ${to}: the map's row does not name it`);
      if (!anythingBelow)
        for (const to of named)
          if (!imported(folder).has(to)) wrong.push(`${folder}: names ${to}/, which it does not import`);
    });
    expect(wrong).toEqual([]);
  });

  it('docs/architecture.md maps every folder of src/ (a new folder gets its row)', async () => {
    const map = await readFile(join(SRC, '../docs/architecture.md'), 'utf8');
    const folders = [...new Set(sources.map((s) => s.folder))].filter((folder) => folder !== '.');
    expect(folders.length).toBeGreaterThan(10);
    const rows = map.split('\n').map((line) => /^\| `([\w-]+)\/`/.exec(line)?.[1]);
    expect(folders.filter((folder) => !rows.includes(folder))).toEqual([]);
  });
});
