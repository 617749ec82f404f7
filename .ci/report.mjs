// The end of .ci/run: `node .ci/report.mjs DIR NAME…` reads each test pass's vitest JSON report (DIR/NAME.json),
// exit code (NAME.code) and wall time in seconds (NAME.seconds), prints each pass's time and count, the ten
// slowest test files over all passes, and one last line `N passed, N failed`; exits 1 when any test failed.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

const [dir, ...names] = process.argv.slice(2);
const minutes = (seconds) =>
  `${Math.floor(seconds / 60)} min ${String(Math.round(seconds % 60)).padStart(2)} s`;
let passed = 0;
let failed = 0;
const files = [];
const lines = [];
for (const name of names) {
  const read = (ext) => readFileSync(join(dir, `${name}.${ext}`), 'utf8');
  const code = Number(read('code'));
  const seconds = existsSync(join(dir, `${name}.seconds`)) ? Number(read('seconds')) : NaN;
  const file = join(dir, `${name}.json`);
  if (!existsSync(file) || statSync(file).size === 0) {
    console.error(`${name}: the run wrote no report (exit code ${code})`);
    failed += 1;
    continue;
  }
  const report = JSON.parse(readFileSync(file, 'utf8'));
  // Each failed test once (numFailedTestSuites would count every describe around it again), and a file that
  // failed with no failed test (it did not load, or a hook failed) once.
  const broken = report.testResults.filter(
    (f) => f.status === 'failed' && !f.assertionResults.some((a) => a.status === 'failed'),
  );
  let f = report.numFailedTests + broken.length;
  if (report.numTotalTests === 0 || (code !== 0 && f === 0)) f += 1; // ran nothing, or failed outside a test
  lines.push(
    `${name.padEnd(17)} ${minutes(seconds)}  ${String(report.numPassedTests).padStart(5)} passed, ${f} failed`,
  );
  passed += report.numPassedTests;
  failed += f;
  for (const result of report.testResults) {
    // The report names files by absolute path, in the clone or in the user's copy of it.
    const path = relative(report.testResults[0] ? commonRoot(report) : '', result.name);
    files.push({ pass: name, path, seconds: (result.endTime - result.startTime) / 1000 });
  }
}
console.log('Time per pass (wall; the passes run side by side):');
for (const line of lines) console.log(`  ${line}`);
console.log('The ten slowest test files:');
for (const { pass, path, seconds } of files.sort((a, b) => b.seconds - a.seconds).slice(0, 10))
  console.log(`  ${seconds.toFixed(1).padStart(6)} s  ${path} (${pass})`);
console.log(`${passed} passed, ${failed} failed`);
if (failed > 0) process.exit(1);

/** The folder that holds `tests/` in this report's paths. */
function commonRoot(report) {
  const first = report.testResults[0].name;
  const at = first.lastIndexOf('/tests/');
  return at < 0 ? '/' : first.slice(0, at);
}
