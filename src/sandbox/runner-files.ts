// The runner's own files, which the tools' sandbox hides: the file commands (GITHUB_ENV, GITHUB_OUTPUT…)
// that set variables and outputs for later steps, the event file, RUNNER_TEMP (where actions/checkout v6
// keeps the persisted token, and setup-* actions their credentials), and the runner's installation.
import path from 'node:path';

const RUNNER_PATH_VARIABLES = [
  'RUNNER_TEMP',
  'GITHUB_ENV',
  'GITHUB_OUTPUT',
  'GITHUB_STATE',
  'GITHUB_PATH',
  'GITHUB_STEP_SUMMARY',
  'GITHUB_EVENT_PATH',
];

/** The action runs on the runner's own node: `<runner>/externals/node24/bin/node`. */
const RUNNER_NODE = /^(.+)\/externals\/node\d+\/bin\/node$/;

export function runnerFiles(env: NodeJS.ProcessEnv, execPath = process.execPath): string[] {
  const files = RUNNER_PATH_VARIABLES.map((name) => env[name]).filter(
    (value): value is string => !!value && path.isAbsolute(value),
  );
  const runner = RUNNER_NODE.exec(execPath)?.[1];
  if (runner) files.push(runner);
  return [...new Set(files)];
}
