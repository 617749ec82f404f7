// The runner's own files, which the tools' sandbox hides: the file commands (GITHUB_ENV, GITHUB_OUTPUT…)
// that set variables and outputs for later steps, the event file, RUNNER_TEMP (where actions/checkout v6
// keeps the persisted token, and setup-* actions their credentials), the runner's installation, and the
// work folder around the workspace. setup.ts keeps the workspace and the tool cache in sight wherever one
// of these holds them, and covers everything beside the way down to them instead. And where a path lies out
// of a sandbox's sight (`outOfSight`), as an MCP server's start message names it.
import path from 'node:path';
import type { SandboxConfig } from './namespaces.js';

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

/**
 * A runner folder that is one of several kept side by side: the hosted runner's `actions-runner/cached`, or
 * a version under `runners/` (`runners/2.330.0`). Its parent is the runner's too (its credentials, its
 * diagnostics, the other versions), so the parent is what is hidden.
 */
const ONE_OF_SEVERAL = /^(cached|\d+\.\d+\.\d+)$/;

export function runnerFiles(env: NodeJS.ProcessEnv, execPath = process.execPath): string[] {
  const files = RUNNER_PATH_VARIABLES.map((name) => env[name]).filter(
    (value): value is string => !!value && path.isAbsolute(value),
  );
  const runner = RUNNER_NODE.exec(execPath)?.[1];
  if (runner) files.push(ONE_OF_SEVERAL.test(path.basename(runner)) ? path.dirname(runner) : runner);
  const work = workFolder(env);
  if (work) files.push(work);
  return [...new Set(files)];
}

/**
 * The runner's work folder: RUNNER_WORKSPACE's parent (`/home/runner/work` for the workspace
 * `/home/runner/work/<repo>/<repo>`). Beside the workspace it holds `_temp`, `_actions` (the actions the job
 * downloaded), `_tool`, `_PipelineMapping`, and on a runner that is not wiped between jobs other
 * repositories' checkouts. Undefined unless the workspace is inside RUNNER_WORKSPACE, as a runner lays it
 * out, and the parent is a folder other than `/`.
 */
function workFolder(env: NodeJS.ProcessEnv): string | undefined {
  const runnerWorkspace = env.RUNNER_WORKSPACE;
  const workspace = env.GITHUB_WORKSPACE;
  if (!runnerWorkspace || !workspace || !path.isAbsolute(runnerWorkspace) || !path.isAbsolute(workspace))
    return undefined;
  const inside = path.relative(path.resolve(runnerWorkspace), path.resolve(workspace));
  if (inside === '' || inside.startsWith('..') || path.isAbsolute(inside)) return undefined;
  const parent = path.dirname(path.resolve(runnerWorkspace));
  return parent === path.parse(parent).root ? undefined : parent;
}

/** `inner` is `outer` or inside it. */
const isWithin = (inner: string, outer: string): boolean =>
  /^(?!\.\.(?:\/|$))/.test(path.relative(outer, inner));

/**
 * Where `file` lies out of the sight of a call in a sandbox of `config`: in a directory the sandbox gives
 * a new, empty one of (`own`: /tmp, /var/tmp, and /run without the host's network), or in a path it hides
 * (the runner's files, credentials); undefined when the call sees it as the runner has it.
 */
export function outOfSight(
  config: Pick<SandboxConfig, 'network' | 'hidden'>,
  file: string,
): { dir: string; kind: 'own' | 'hidden' } | undefined {
  if (!path.isAbsolute(file)) return undefined;
  const hidden = config.hidden.find((dir) => isWithin(path.resolve(file), dir));
  if (hidden) return { dir: hidden, kind: 'hidden' };
  const own = ['/tmp', '/var/tmp', ...(config.network === 'host' ? [] : ['/run', '/var/run'])];
  const fresh = own.find((dir) => isWithin(file, dir));
  return fresh ? { dir: fresh, kind: 'own' } : undefined;
}
