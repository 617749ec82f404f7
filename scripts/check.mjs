// `npm run check [-- --base REF]`: the quick check for the loop of work (under 3 minutes on two quiet cores;
// docs/development.md, "The CI budget"). What a change most likely breaks: the typecheck, lint and format of
// the files it touched, the unit tests of the folders it touched (src/x/… → tests/x/), and one end-to-end run
// of the action (dist/index.js, rebuilt first when the change to src/ is newer than it). The change is what
// differs from REF's merge base (default: main) plus what is not committed yet. `.ci/run` stays the full gate.
import { spawn, execFileSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

const { values } = parseArgs({ options: { base: { type: 'string', default: 'main' } } });
const git = (...args) => execFileSync('git', args, { encoding: 'utf8' }).trim();
const lines = (text) => text.split('\n').filter(Boolean);

const base = git('merge-base', 'HEAD', values.base);
const changed = [
  ...new Set([
    ...lines(git('diff', '--name-only', base)),
    ...lines(git('ls-files', '--others', '--exclude-standard')),
  ]),
].filter((file) => existsSync(file) && !file.startsWith('dist/'));

/** The tests a file's change most likely breaks: its folder's under tests/, or the test itself. */
function testsOf(file) {
  if (/^tests\/e2e\//.test(file)) return [];
  if (file.endsWith('.test.ts')) return [file];
  const src = /^src\/([^/]+)\//.exec(file);
  if (src) return existsSync(`tests/${src[1]}`) ? [`tests/${src[1]}`] : [];
  if (/^src\/[^/]+\.ts$/.test(file)) return ['tests/boundaries.test.ts'];
  const support = /^tests\/support\/([^/]+)\//.exec(file);
  if (support) return [`tests/support/${support[1]}`];
  if (/^(docs\/|action\.yml$|README\.md$|CHANGELOG\.md$)/.test(file)) return ['tests/docs.test.ts'];
  return [];
}
const unitTests = [...new Set(changed.flatMap(testsOf))].sort();
const lintable = changed.filter((file) => /\.(ts|mjs|js)$/.test(file));

/** Runs one step, its output kept until it ends, so that steps run side by side print in one piece each. */
function run(label, command, args) {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('close', (code) => {
      const seconds = ((Date.now() - started) / 1000).toFixed(0);
      const ok = code === 0;
      process.stdout.write(`\n── ${label}: ${ok ? 'ok' : `FAILED (exit code ${code})`}, ${seconds} s\n`);
      if (!ok || process.env.CHECK_VERBOSE) process.stdout.write(output);
      resolve(ok);
    });
  });
}

const started = Date.now();
console.log(
  `Changed since ${values.base} (${base.slice(0, 7)}): ${changed.length} file(s). ` +
    `Unit tests: ${unitTests.length ? unitTests.join(' ') : 'none'}.`,
);
const bin = (name) => join('node_modules', '.bin', name);
const steps = [
  // Incremental: the second check of a change re-checks only what changed since the first.
  run('typecheck', bin('tsc'), [
    '--noEmit',
    '--incremental',
    '--tsBuildInfoFile',
    'node_modules/.cache/tsc.tsbuildinfo',
  ]),
];
if (lintable.length)
  steps.push(
    run('eslint', bin('eslint'), ['--cache', '--cache-location', 'node_modules/.cache/eslint/', ...lintable]),
  );
if (changed.length) steps.push(run('prettier', bin('prettier'), ['--check', '--ignore-unknown', ...changed]));
if (unitTests.length)
  steps.push(run('unit tests', bin('vitest'), ['run', '--passWithNoTests', ...unitTests]));
steps.push(
  (async () => {
    // dist/ as committed is src/ as on main: a change to src/ needs a build newer than the change.
    const builtAt = existsSync('dist/index.js') ? statSync('dist/index.js').mtimeMs : 0;
    if (changed.some((file) => file.startsWith('src/') && statSync(file).mtimeMs > builtAt)) {
      console.log(
        'src/ changed after dist/ was built: building it for the end-to-end run (never commit it).',
      );
      if (!(await run('build', 'npm', ['run', '--silent', 'build']))) return false;
    }
    return await run('one end-to-end run (tests/e2e/action.test.ts, its first case)', bin('vitest'), [
      'run',
      'tests/e2e/action.test.ts',
      '-t',
      '\\(classic\\) turns `/agent <task>` into a live checklist comment',
    ]);
  })(),
);
const results = await Promise.all(steps);
const seconds = Math.round((Date.now() - started) / 1000);
const failed = results.filter((ok) => !ok).length;
console.log(
  `\nnpm run check: ${failed === 0 ? 'every step passed' : `${failed} step(s) failed`} in ${seconds} s ` +
    '(the budget is 3 min; `.ci/run` is the full gate).',
);
process.exit(failed === 0 ? 0 : 1);
